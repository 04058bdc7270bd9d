"""The gRPC client of one KMS v2 plugin (upstream's `KeyManagementService` on a unix socket).

Calls are synchronous with the configured timeout: the envelope needs the plugin only when the write
seed changes and the first time a stored seed is read, and reads of stored values are synchronous
in the object store. Callers on the event loop that can wait (status polls, seed rotation) run the
calls in a thread.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import grpc

from svc.storage.encryption.kms import kms_api_pb2 as api
from svc.storage.encryption.kms.kms_api_pb2_grpc import KeyManagementServiceStub


class PluginError(Exception):
    """The plugin could not be reached or refused the call."""


@dataclass(frozen=True)
class Status:
    version: str
    healthz: str
    key_id: str


@dataclass(frozen=True)
class Sealed:
    ciphertext: bytes
    key_id: str
    annotations: dict[str, bytes]


class Plugin:
    def __init__(self, endpoint: str, timeout: float) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._channel = grpc.insecure_channel(endpoint)
        self._stub = KeyManagementServiceStub(self._channel)

    def status(self) -> Status:
        response = self._call(self._stub.Status, api.StatusRequest())
        return Status(response.version, response.healthz, response.key_id)

    def encrypt(self, plaintext: bytes) -> Sealed:
        response = self._call(self._stub.Encrypt, api.EncryptRequest(plaintext=plaintext, uid=str(uuid.uuid4())))
        return Sealed(response.ciphertext, response.key_id, dict(response.annotations))

    def decrypt(self, sealed: Sealed) -> bytes:
        request = api.DecryptRequest(
            ciphertext=sealed.ciphertext, uid=str(uuid.uuid4()), key_id=sealed.key_id, annotations=sealed.annotations
        )
        return self._call(self._stub.Decrypt, request).plaintext

    def _call(self, method: Any, request: Any) -> Any:
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as error:
            raise PluginError(f"rpc error: code = {error.code().name} desc = {error.details()}") from None

    def close(self) -> None:
        self._channel.close()
