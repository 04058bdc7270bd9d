"""The `aescbc` and `aesgcm` providers (upstream's stored layouts: IV or nonce, then ciphertext)."""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from svc.storage.encryption.transformer import TransformError

_BLOCK = 16
_NONCE = 12


class AesCbc:
    """AES-CBC with PKCS#7 padding; not authenticated, so the key (context) is not bound."""

    def __init__(self, key: bytes) -> None:
        self._algorithm = algorithms.AES(key)

    def to_storage(self, data: bytes, context: bytes) -> bytes:
        iv = os.urandom(_BLOCK)
        padder = padding.PKCS7(_BLOCK * 8).padder()
        encryptor = Cipher(self._algorithm, modes.CBC(iv)).encryptor()
        return iv + encryptor.update(padder.update(data) + padder.finalize()) + encryptor.finalize()

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        if len(data) < _BLOCK:
            raise TransformError("the stored data was shorter than the required size")
        iv, body = data[:_BLOCK], data[_BLOCK:]
        if not body or len(body) % _BLOCK:
            raise TransformError("the stored data is not a multiple of the block size")
        decryptor = Cipher(self._algorithm, modes.CBC(iv)).decryptor()
        padded = decryptor.update(body) + decryptor.finalize()
        unpadder = padding.PKCS7(_BLOCK * 8).unpadder()
        try:
            return unpadder.update(padded) + unpadder.finalize(), False
        except ValueError:
            raise TransformError("invalid PKCS7 data (empty or not padded)") from None


class AesGcm:
    """AES-GCM with a random nonce; the value's key is authenticated, so a value moved to another
    key does not decrypt."""

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def to_storage(self, data: bytes, context: bytes) -> bytes:
        nonce = os.urandom(_NONCE)
        return nonce + self._aead.encrypt(nonce, data, context)

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        if len(data) < _NONCE:
            raise TransformError("the stored data was shorter than the required size")
        try:
            return self._aead.decrypt(data[:_NONCE], data[_NONCE:], context), False
        except InvalidTag:
            raise TransformError("cipher: message authentication failed") from None
