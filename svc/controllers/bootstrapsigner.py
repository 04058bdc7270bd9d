"""The bootstrap-signer controller (off by default): the public `cluster-info` ConfigMap is signed with
every bootstrap token allowed to sign, so a joining node can trust it knowing only its token.

Upstream `pkg/controller/bootstrap/bootstrapsigner.go`: for each valid Secret of type
`bootstrap.kubernetes.io/token` (profile spelling) in the system namespace, named
`bootstrap-token-<token-id>`, with `usage-bootstrap-signing: "true"` and not expired, the ConfigMap's
`kubeconfig` gets a detached JWS (HS256 keyed by the token secret, `kid` the token id) under
`jws-kubeconfig-<token-id>`; signatures of tokens no longer valid are removed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.tokencleaner import expiration

NAME = "bootstrap-signer-controller"
CLUSTER_INFO = "cluster-info"
KUBECONFIG_KEY = "kubeconfig"
SIGNATURE_PREFIX = "jws-kubeconfig-"
TOKEN_PREFIX = "bootstrap-token-"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def detached_signature(content: str, token_id: str, token_secret: str) -> str:
    """A compact JWS of `content` without its payload: `<header>..<signature>`."""
    header = _b64url(json.dumps({"alg": "HS256", "kid": token_id}, separators=(",", ":")).encode())
    signing_input = f"{header}.{_b64url(content.encode())}".encode()
    signature = hmac.new(token_secret.encode(), signing_input, hashlib.sha256).digest()
    return f"{header}..{_b64url(signature)}"


def _field(secret: dict, key: str) -> str:
    try:
        return base64.b64decode((secret.get("data") or {}).get(key) or "").decode()
    except (binascii.Error, UnicodeDecodeError):
        return ""


def signing_token(secret: dict, token_type: str, now: float) -> tuple[str, str] | None:
    """(token id, token secret) of a token valid for signing, else None."""
    if secret.get("type") != token_type:
        return None
    token_id, token_secret = _field(secret, "token-id"), _field(secret, "token-secret")
    if not token_id or not token_secret or secret["metadata"]["name"] != f"{TOKEN_PREFIX}{token_id}":
        return None
    if _field(secret, "usage-bootstrap-signing") != "true":
        return None
    expires = expiration(secret)
    if expires is not None and expires <= now:
        return None
    return token_id, token_secret


class BootstrapSigner:
    def __init__(self, context: ControllerContext) -> None:
        self.context = context
        self.system_namespace = context.profile.system_namespace
        self.public_namespace = context.profile.public_namespace
        self.token_type = context.profile.label("bootstrap.kubernetes.io/token")
        self.key = f"{self.public_namespace}/{CLUSTER_INFO}"
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.configmaps = context.informers.informer("", "v1", "configmaps")
        self.secrets = context.informers.informer("", "v1", "secrets")
        self.configmaps.add_handler(
            Handler(on_add=self._configmap, on_update=lambda _old, cm: self._configmap(cm), on_delete=self._configmap)
        )
        self.secrets.add_handler(
            Handler(on_add=self._secret, on_update=lambda _old, s: self._secret(s), on_delete=self._secret)
        )

    def _configmap(self, configmap: dict) -> None:
        metadata = configmap["metadata"]
        if (metadata.get("namespace"), metadata.get("name")) == (self.public_namespace, CLUSTER_INFO):
            self.queue.add(self.key)

    def _secret(self, secret: dict) -> None:
        if secret["metadata"].get("namespace") == self.system_namespace and secret.get("type") == self.token_type:
            self.queue.add(self.key)

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=1, name=NAME)

    async def sync(self, _key: str) -> None:
        configmap = self.configmaps.get(self.key)
        if configmap is None:
            return
        data = dict(configmap.get("data") or {})
        content = data.get(KUBECONFIG_KEY)
        if content is None:
            return
        now = self.context.clock.wall()
        tokens = [
            token
            for secret in self.secrets.list()
            if secret["metadata"].get("namespace") == self.system_namespace
            and (token := signing_token(secret, self.token_type, now)) is not None
        ]
        wanted = {
            f"{SIGNATURE_PREFIX}{token_id}": detached_signature(content, token_id, secret)
            for token_id, secret in tokens
        }
        current = {key: value for key, value in data.items() if key.startswith(SIGNATURE_PREFIX)}
        if current == wanted:
            return
        updated = {key: value for key, value in data.items() if not key.startswith(SIGNATURE_PREFIX)} | wanted
        path = resource_path("", "v1", "configmaps", namespace=self.public_namespace, name=CLUSTER_INFO)
        try:
            await self.context.client.update(path, {**configmap, "data": updated})
        except ApiError as error:
            if error.reason != "NotFound":
                raise
