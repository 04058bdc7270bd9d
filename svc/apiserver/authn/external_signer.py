"""An external signer of service-account tokens (`--service-account-signing-endpoint`).

Upstream's ExternalJWTSigner v1 gRPC API on a unix socket: `Metadata` once at start (the longest
token the signer issues, which caps and defaults `--service-account-max-token-expiration`), `FetchKeys`
at start, again when the signer's refresh hint passes (10 s after a failed refresh, keeping the stale
keys) and whenever a token names a key id we do not know, and `Sign` for each TokenRequest: we send the
base64url claims and assemble the token from the header and signature it returns, after checking the
header as upstream does. Keys flagged `exclude_from_oidc_discovery` verify tokens but are not published
at `/openid/v1/jwks`, and must not sign.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import grpc
import orjson
from cryptography.hazmat.primitives.serialization import load_der_public_key

from svc.apiserver.authn.service_account_jwt import Claims
from svc.apiserver.authn.service_account_keys import PublicKey, algorithm
from svc.apiserver.authn.service_account_tokens import EXTENDED_EXPIRATION
from svc.apiserver.authn.signer_error import SignerError
from svc.machinery.duration import format_duration
from svc.machinery.proto_messages import build_messages

log = logging.getLogger(__name__)

SERVICE = "v1.ExternalJWTSigner"
MESSAGES = build_messages(
    "v1",
    {
        "SignJWTRequest": [("claims", 1, "string")],
        "SignJWTResponse": [("header", 1, "string"), ("signature", 2, "string")],
        "FetchKeysRequest": [],
        "Key": [("key_id", 1, "string"), ("key", 2, "bytes"), ("exclude_from_oidc_discovery", 3, "bool")],
        "FetchKeysResponse": [
            ("keys", 1, "Key[]"),
            ("data_timestamp", 2, "Timestamp"),
            ("refresh_hint_seconds", 3, "int64"),
        ],
        "MetadataRequest": [],
        "MetadataResponse": [("max_token_expiration_seconds", 1, "int64")],
    },
)
MIN_TOKEN_LIFETIME = 600
FALLBACK_REFRESH = 10.0
CALL_TIMEOUT = 30.0
_ALGORITHMS = frozenset({"RS256", "ES256", "ES384", "ES512"})
_HEADER_MEMBERS = frozenset({"alg", "kid", "typ"})


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _rpc_error(error: grpc.aio.AioRpcError) -> SignerError:
    """Go's gRPC error text: `rpc error: code = Unknown desc = ...`."""
    code = "".join(part.capitalize() for part in error.code().name.split("_"))
    return SignerError(f"rpc error: code = {code} desc = {error.details()}")


def _keys_of(answer: Any) -> tuple[list[PublicKey], list[PublicKey], float]:
    """(all keys, the published ones, refresh hint), checked as upstream checks them."""
    if answer.refresh_hint_seconds <= 0:
        raise SignerError(f"found invalid refresh hint ({answer.refresh_hint_seconds}s)")
    if not answer.keys:
        raise SignerError("found no keys")
    every: list[PublicKey] = []
    published: list[PublicKey] = []
    for key in answer.keys:
        if not key.key_id or len(key.key_id) > 1024:
            raise SignerError(f'found invalid public key id "{key.key_id}"')
        if not key.key:
            raise SignerError("found empty public key")
        try:
            parsed: Any = load_der_public_key(key.key)
            public = PublicKey(parsed, key.key_id, algorithm(parsed))
        except (ValueError, KeyError, AttributeError) as error:
            raise SignerError(f"while parsing external public keys: {error}") from None
        every.append(public)
        if not key.exclude_from_oidc_discovery:
            published.append(public)
    return every, published, float(answer.refresh_hint_seconds)


class ExternalSigner:
    """Signs tokens through the plugin and keeps the verification keys it serves."""

    def __init__(self, issuer: str, socket_path: str, on_keys: Callable[[list[PublicKey], list[PublicKey]], None]):
        self.issuer = issuer
        target = f"unix-abstract:{socket_path[1:]}" if socket_path.startswith("@") else f"unix:{socket_path}"
        self._channel = grpc.aio.insecure_channel(target, options=[("grpc.default_authority", "localhost")])
        self._on_keys = on_keys
        self._excluded: set[str] = set()
        self._refresh_at = 0.0
        self._syncing: asyncio.Task[None] | None = None
        self._loop_task: asyncio.Task[None] | None = None
        self.max_token_expiration = 0

    def _call(self, method: str, request: str, response: str) -> Any:
        return self._channel.unary_unary(
            f"/{SERVICE}/{method}",
            request_serializer=MESSAGES[request].SerializeToString,
            response_deserializer=MESSAGES[response].FromString,
        )

    async def start(self) -> None:
        """Ask for the metadata and the keys; raises ValueError with upstream's start-up message."""
        try:
            try:
                metadata = await self._call("Metadata", "MetadataRequest", "MetadataResponse")(
                    MESSAGES["MetadataRequest"](), timeout=CALL_TIMEOUT, wait_for_ready=True
                )
            except grpc.aio.AioRpcError as error:
                raise _rpc_error(error) from None
            self.max_token_expiration = metadata.max_token_expiration_seconds
            try:
                await self.sync_keys()
            except SignerError as error:
                raise SignerError(
                    f"while initially filling key cache: while performing initial cache fill: {error}"
                ) from None
        except SignerError as error:
            await self._channel.close()
            raise ValueError(f"while setting up external-jwt-signer: {error}") from None
        self._loop_task = asyncio.create_task(self._refresh_loop())

    def check_expirations(self, max_expiration: float) -> tuple[float, float]:
        """(maximum token lifetime, extended lifetime) given `--service-account-max-token-expiration`
        (0: unset), as upstream completes them; raises ValueError on a misconfiguration."""
        supported = self.max_token_expiration
        if supported < MIN_TOKEN_LIFETIME:
            raise ValueError(
                f"max token life supported by external-jwt-signer ({supported}s) is less than acceptable "
                f"(min {MIN_TOKEN_LIFETIME}s)"
            )
        if max_expiration > supported:
            raise ValueError(
                "service-account-max-token-expiration cannot be set longer than the token expiration supported by "
                f"service-account-signing-endpoint: {format_duration(max_expiration)} > {format_duration(supported)}"
            )
        return (max_expiration or float(supported)), float(min(EXTENDED_EXPIRATION, supported))

    async def sync_keys(self) -> None:
        """Fetch the key set once, however many callers ask at the same time (upstream's singleflight)."""
        if self._syncing is None or self._syncing.done():
            self._syncing = asyncio.create_task(self._fetch_keys())
        await asyncio.shield(self._syncing)

    async def _fetch_keys(self) -> None:
        try:
            answer = await self._call("FetchKeys", "FetchKeysRequest", "FetchKeysResponse")(
                MESSAGES["FetchKeysRequest"](), timeout=CALL_TIMEOUT
            )
        except grpc.aio.AioRpcError as error:
            raise SignerError(
                f"while fetching token verification keys: while getting externally supported jwt signing keys: "
                f"{_rpc_error(error)}"
            ) from None
        try:
            every, published, hint = _keys_of(answer)
        except SignerError as error:
            raise SignerError(f"while fetching token verification keys: {error}") from None
        self._excluded = {key.kid for key in every} - {key.kid for key in published}
        self._refresh_at = time.monotonic() + hint
        self._on_keys(every, published)

    async def refresh_for_unknown_key(self) -> None:
        """A token named a key id we do not know: the signer may have rotated its keys."""
        try:
            await self.sync_keys()
        except SignerError as error:
            log.error("Error while syncing keys: %s", error)

    async def _refresh_loop(self) -> None:
        while True:
            await asyncio.sleep(max(self._refresh_at - time.monotonic(), 0.0))
            try:
                await self.sync_keys()
            except SignerError as error:
                log.error("when syncing supported public keys (stale set of keys will be supported): %s", error)
                self._refresh_at = time.monotonic() + FALLBACK_REFRESH

    async def sign(self, claims: Claims) -> str:
        """The token for `claims`, signed by the plugin; raises SignerError."""
        payload = _b64(orjson.dumps({**claims, "iss": self.issuer}))
        try:
            answer = await self._call("Sign", "SignJWTRequest", "SignJWTResponse")(
                MESSAGES["SignJWTRequest"](claims=payload), timeout=CALL_TIMEOUT
            )
        except grpc.aio.AioRpcError as error:
            raise SignerError(f"while signing jwt: {_rpc_error(error)}") from None
        try:
            self._check_header(answer.header)
        except SignerError as error:
            raise SignerError(f"while validating header: {error}") from None
        if not answer.signature:
            raise SignerError("empty signature returned")
        return f"{answer.header}.{payload}.{answer.signature}"

    def _check_header(self, encoded: str) -> None:
        try:
            header = orjson.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
        except (ValueError, orjson.JSONDecodeError) as error:
            raise SignerError(f"while parsing header JSON: {error}") from None
        if not isinstance(header, dict) or set(header) - _HEADER_MEMBERS:
            raise SignerError("while parsing header JSON: unknown field in the header")
        kid = header.get("kid")
        if header.get("typ") != "JWT":
            raise SignerError("bad type")
        if not isinstance(kid, str) or not kid:
            raise SignerError("key id missing")
        if len(kid) > 1024:
            raise SignerError("key id longer than 1 kb")
        if header.get("alg") not in _ALGORITHMS:
            raise SignerError(f'bad signing algorithm "{header.get("alg")}"')
        if kid in self._excluded:
            raise SignerError(f"key used for signing JWT (kid: {kid}) is excluded from OIDC discovery docs")

    async def close(self) -> None:
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
        await self._channel.close()
