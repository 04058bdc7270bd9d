"""An ExternalJWTSigner v1 plugin on a unix socket, as a cloud KMS-backed signer would be: it signs
with the key it holds now and serves the keys that verify, and counts what it was asked."""

from __future__ import annotations

import base64
import contextlib
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import orjson
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from svc.apiserver.authn.external_signer import MESSAGES, SERVICE


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class SignerKey:
    kid: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    excluded: bool = False

    def der(self) -> bytes:
        return self.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )


@dataclass
class Plugin:
    keys: list[SignerKey]
    signing: str  # the kid that signs
    max_token_expiration: int = 24 * 3600
    refresh_hint: int = 3600
    header_extra: dict[str, Any] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=lambda: {"Sign": 0, "FetchKeys": 0, "Metadata": 0})
    lock: threading.Lock = field(default_factory=threading.Lock)

    def key(self, kid: str) -> SignerKey:
        return next(key for key in self.keys if key.kid == kid)

    def _sign(self, request: Any, context: Any) -> Any:
        with self.lock:
            self.calls["Sign"] += 1
            key = self.key(self.signing)
        header = _b64(orjson.dumps({"alg": "ES256", "kid": key.kid, "typ": "JWT", **self.header_extra}))
        signature = ECAlgorithm(ECAlgorithm.SHA256).sign(f"{header}.{request.claims}".encode(), key.key)
        return MESSAGES["SignJWTResponse"](header=header, signature=_b64(signature))

    def _fetch_keys(self, request: Any, context: Any) -> Any:
        with self.lock:
            self.calls["FetchKeys"] += 1
            answer = MESSAGES["FetchKeysResponse"](refresh_hint_seconds=self.refresh_hint)
            for key in self.keys:
                answer.keys.add(key_id=key.kid, key=key.der(), exclude_from_oidc_discovery=key.excluded)
        answer.data_timestamp.GetCurrentTime()
        return answer

    def _metadata(self, request: Any, context: Any) -> Any:
        with self.lock:
            self.calls["Metadata"] += 1
        return MESSAGES["MetadataResponse"](max_token_expiration_seconds=self.max_token_expiration)

    def handler(self) -> grpc.GenericRpcHandler:
        def method(function: Any, request: str, response: str) -> grpc.RpcMethodHandler:
            return grpc.unary_unary_rpc_method_handler(
                function,
                request_deserializer=MESSAGES[request].FromString,
                response_serializer=MESSAGES[response].SerializeToString,
            )

        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Sign": method(self._sign, "SignJWTRequest", "SignJWTResponse"),
                "FetchKeys": method(self._fetch_keys, "FetchKeysRequest", "FetchKeysResponse"),
                "Metadata": method(self._metadata, "MetadataRequest", "MetadataResponse"),
            },
        )


@contextlib.contextmanager
def serve_plugin(plugin: Plugin, directory: Path) -> Iterator[str]:
    """The plugin listening on a socket in `directory`; yields the socket's path."""
    path = directory / "signer.sock"
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((plugin.handler(),))
    server.add_insecure_port(f"unix:{path}")
    server.start()
    try:
        yield str(path)
    finally:
        server.stop(grace=None)
