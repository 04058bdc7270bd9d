"""The `secretbox` provider: XSalsa20-Poly1305 (NaCl secretbox), a random 24-byte nonce first."""

from __future__ import annotations

import nacl.exceptions
import nacl.secret

from svc.storage.encryption.transformer import TransformError


class Secretbox:
    def __init__(self, key: bytes) -> None:
        self._box = nacl.secret.SecretBox(key)

    def to_storage(self, data: bytes, context: bytes) -> bytes:
        return bytes(self._box.encrypt(data))

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        if len(data) < nacl.secret.SecretBox.NONCE_SIZE + nacl.secret.SecretBox.MACBYTES:
            raise TransformError("the stored data was shorter than the required size")
        try:
            return self._box.decrypt(data), False
        except nacl.exceptions.CryptoError:
            raise TransformError("output array was not large enough for encryption") from None
