"""The KMS v2 value transformer, in upstream's envelope scheme.

A random 32-byte seed is encrypted once by the plugin; every write derives a one-use AES-GCM key
from the seed and 32 random bytes (HKDF-SHA256 expand), seals the value with the object's key as
authenticated data, and stores an `EncryptedObject`: the sealed data (random bytes, nonce,
ciphertext), the plugin's key ID, and the encrypted seed. Reads ask the plugin to decrypt a stored
seed once and keep it (by its encrypted bytes). The plugin's `Status` is polled; when its key ID
changes a new seed is made, and values written under another key ID are stale, so rewriting them
moves them to the new key.

The write seed is reused only while the plugin keeps confirming it, as upstream bounds it: each
status check that returns the seed's key ID extends its life to `WRITE_SEED_TTL` (3 minutes) from
the check; a new key ID, or a check after the seed expired, makes a new seed. While the plugin
fails, writes go on with the current seed until it expires, then fail (reads never expire). The
provider's traffic is counted in upstream's `apiserver_envelope_encryption_*` metrics.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from google.protobuf.message import DecodeError

from svc.storage.encryption.kms import messages as stored
from svc.storage.encryption.kms.plugin import Plugin, PluginError, Sealed
from svc.storage.encryption.metrics import EnvelopeMetrics, sha256_label
from svc.storage.encryption.transformer import TransformError

log = logging.getLogger(__name__)

SEED_SIZE = 32
_INFO_SIZE = 32
_NONCE_SIZE = 12
_CACHE_SIZE = 1000
_MAX_KEY_ID = 1024
HEALTHY_POLL = 60.0
UNHEALTHY_POLL = 10.0
"""How often the plugin's status is checked (upstream: each minute, every ten seconds while failing)."""
WRITE_SEED_TTL = 180.0
"""How long after the last confirming status check the write seed may still encrypt (upstream's
`kmsv2PluginWriteDEKSourceMaxTTL`)."""


@dataclass(frozen=True)
class _WriteState:
    seed: bytes
    sealed: Sealed
    expires: float
    """Wall-clock time after which the seed no longer encrypts."""


class KmsV2:
    def __init__(self, name: str, plugin: Plugin, metrics: EnvelopeMetrics | None = None) -> None:
        self.name = name
        self.plugin = plugin
        self.metrics = metrics
        self.write_ttl = WRITE_SEED_TTL
        self._write: _WriteState | None = None
        self._key_id = ""
        self._seeds: OrderedDict[bytes, bytes] = OrderedDict()
        self.problem = "KMS provider has not been checked yet"
        """Why the provider is unhealthy; empty when the last status check passed."""

    # -- values --------------------------------------------------------------------------------
    def to_storage(self, data: bytes, context: bytes) -> bytes:
        state = self._write
        if state is None:
            raise TransformError(f"failed to encrypt with KMS provider {self.name}: no write key yet ({self.problem})")
        now = time.time()
        if now > state.expires:
            raise TransformError(
                f"failed to encrypt with KMS provider {self.name}: encryptedDEKSource with keyID hash "
                f'"{sha256_label(state.sealed.key_id)}" expired at {_rfc3339(state.expires)} '
                f"(current time is {_rfc3339(now)})"
            )
        if self.metrics is not None:
            self.metrics.key_id_used("to_storage", self.name, state.sealed.key_id)
        info = os.urandom(_INFO_SIZE)
        nonce = os.urandom(_NONCE_SIZE)
        sealed = AESGCM(_derive(state.seed, info)).encrypt(nonce, data, context)
        message = stored.EncryptedObject(
            encryptedData=info + nonce + sealed,
            keyID=state.sealed.key_id,
            encryptedDEKSource=state.sealed.ciphertext,
            annotations=state.sealed.annotations,
            encryptedDEKSourceType=stored.HKDF_SHA256_XNONCE_AES_GCM_SEED,
        )
        return message.SerializeToString()

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        message = stored.EncryptedObject()
        try:
            message.ParseFromString(data)
        except DecodeError as error:
            raise TransformError(f"failed to unmarshal encrypted object: {error}") from None
        if not message.keyID:
            raise TransformError("failed to validate encrypted object: keyID is empty")
        if not message.encryptedDEKSource:
            raise TransformError("failed to validate encrypted object: encrypted DEK source is empty")
        source = self._source(message)
        if self.metrics is not None:
            self.metrics.key_id_used("from_storage", self.name, message.keyID)
        body = message.encryptedData
        if message.encryptedDEKSourceType == stored.HKDF_SHA256_XNONCE_AES_GCM_SEED:
            if len(body) < _INFO_SIZE + _NONCE_SIZE:
                raise TransformError("the stored data was shorter than the required size")
            key, body = _derive(source, body[:_INFO_SIZE]), body[_INFO_SIZE:]
        else:
            key = source
        try:
            plain = AESGCM(key).decrypt(body[:_NONCE_SIZE], body[_NONCE_SIZE:], context)
        except (InvalidTag, ValueError):
            raise TransformError("cipher: message authentication failed") from None
        return plain, message.keyID != self._key_id

    def _source(self, message: Any) -> bytes:
        cached = self._seeds.get(message.encryptedDEKSource)
        if cached is not None:
            self._seeds.move_to_end(message.encryptedDEKSource)
            return cached
        sealed = Sealed(message.encryptedDEKSource, message.keyID, dict(message.annotations))
        try:
            source = self.plugin.decrypt(sealed)
        except PluginError as error:
            raise TransformError(f"failed to decrypt DEK, error: {error}") from None
        self._remember(message.encryptedDEKSource, source)
        return source

    def _remember(self, encrypted: bytes, source: bytes) -> None:
        self._seeds[encrypted] = source
        if len(self._seeds) > _CACHE_SIZE:
            self._seeds.popitem(last=False)
        if self.metrics is not None:
            self.metrics.seed_cache(self.name, len(self._seeds), _CACHE_SIZE)

    # -- key rotation and health ---------------------------------------------------------------
    async def check(self) -> None:
        """Poll the plugin once: record its health, and extend the write seed's life when the plugin
        confirms its key ID, else make a new seed."""
        expires = time.time() + self.write_ttl  # from before the call: the TTL is an upper bound
        try:
            status = await asyncio.to_thread(self.plugin.status)
        except PluginError as error:
            self.problem = (
                f"failed to perform status section of the healthz check for KMS Provider {self.name}, error: {error}"
            )
            return
        if status.healthz != "ok":
            self.problem = f"got unexpected healthz status: {status.healthz}"
            return
        if status.version not in ("v2", "v2beta1"):
            self.problem = f"got unexpected version {status.version!r}, expected v2"
            return
        if not status.key_id or len(status.key_id) > _MAX_KEY_ID:
            if self.metrics is not None:
                self.metrics.invalid_key_id(self.name, "empty" if not status.key_id else "too_long")
            self.problem = (
                "keyID is empty"
                if not status.key_id
                else f"keyID is {len(status.key_id)} bytes, which exceeds the max size of {_MAX_KEY_ID}"
            )
            return
        if self.metrics is not None:
            self.metrics.status_key_id(self.name, status.key_id)
        self._key_id = status.key_id
        state = self._write
        if state is not None and state.sealed.key_id == status.key_id and time.time() <= state.expires:
            self._write = _WriteState(state.seed, state.sealed, expires)
        else:
            try:
                await self._rotate(expires)
            except PluginError as error:
                self.problem = f"failed to encrypt DEK, error: {error}"
                return
        self.problem = ""

    async def _rotate(self, expires: float) -> None:
        start = time.perf_counter()
        seed = os.urandom(SEED_SIZE)
        if self.metrics is not None:
            self.metrics.key_generated(time.perf_counter() - start)
        sealed = await asyncio.to_thread(self.plugin.encrypt, seed)
        if not sealed.key_id:
            raise PluginError("KMSv2-Encrypt: keyID is empty")
        self._remember(sealed.ciphertext, seed)
        self._write = _WriteState(seed, sealed, expires)
        self._key_id = sealed.key_id
        log.info("KMS provider %s: new write seed for key ID %s", self.name, sealed.key_id)

    async def run(self, healthy: float = HEALTHY_POLL, unhealthy: float = UNHEALTHY_POLL) -> None:
        while True:
            await asyncio.sleep(unhealthy if self.problem else healthy)
            await self.check()

    async def health(self) -> None:
        if self.problem:
            raise RuntimeError(self.problem)

    def close(self) -> None:
        self.plugin.close()


def _rfc3339(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _derive(seed: bytes, info: bytes) -> bytes:
    return HKDFExpand(hashes.SHA256(), 32, info).derive(seed)
