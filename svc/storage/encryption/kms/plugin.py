"""The gRPC client of one KMS v2 plugin (upstream's `KeyManagementService` on a unix socket).

Calls are synchronous with the configured timeout: the envelope needs the plugin only when the write
seed changes and the first time a stored seed is read, and reads of stored values are synchronous
in the object store. Callers on the event loop that can wait (status polls, seed rotation) run the
calls in a thread. Each call's duration is reported with its full method name and Go's spelling of
its gRPC status code, as upstream's `kms_operations_latency_seconds` labels them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from svc.storage.encryption.kms import messages as api

OnCall = Callable[[str, str, float], None]
"""(full method name, gRPC status code, seconds)."""


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


def go_code(code: grpc.StatusCode) -> str:
    """Go's name of a gRPC status code: `DEADLINE_EXCEEDED` -> `DeadlineExceeded`, `CANCELLED` -> `Canceled`."""
    if code is grpc.StatusCode.CANCELLED:
        return "Canceled"
    return "".join(part.capitalize() for part in code.name.split("_"))


class Plugin:
    def __init__(self, endpoint: str, timeout: float, on_call: OnCall | None = None) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._on_call = on_call
        self._channel = grpc.insecure_channel(endpoint)
        self._methods = {
            name: (
                f"/{api.SERVICE}/{name}",
                self._channel.unary_unary(
                    f"/{api.SERVICE}/{name}",
                    request_serializer=request.SerializeToString,
                    response_deserializer=response.FromString,
                ),
            )
            for name, (request, response) in api.METHODS.items()
        }

    def status(self) -> Status:
        response = self._call("Status", api.StatusRequest())
        return Status(response.version, response.healthz, response.key_id)

    def encrypt(self, plaintext: bytes) -> Sealed:
        response = self._call("Encrypt", api.EncryptRequest(plaintext=plaintext, uid=str(uuid.uuid4())))
        return Sealed(response.ciphertext, response.key_id, dict(response.annotations))

    def decrypt(self, sealed: Sealed) -> bytes:
        request = api.DecryptRequest(
            ciphertext=sealed.ciphertext, uid=str(uuid.uuid4()), key_id=sealed.key_id, annotations=sealed.annotations
        )
        return self._call("Decrypt", request).plaintext

    def _call(self, name: str, request: Any) -> Any:
        full_name, method = self._methods[name]
        start = time.perf_counter()
        code = "OK"
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as error:
            code = go_code(error.code())
            raise PluginError(f"rpc error: code = {code} desc = {error.details()}") from None
        finally:
            if self._on_call is not None:
                self._on_call(full_name, code, time.perf_counter() - start)

    def close(self) -> None:
        self._channel.close()
