"""Webhook token authentication: a remote service named in a kubeconfig reviews bearer tokens.

Each unknown token is POSTed as a TokenReview (`--authentication-token-webhook-version`, v1 or
v1beta1) to the kubeconfig's server with its CA and client credentials. Answers, authenticated or
not, are cached for `--authentication-token-webhook-cache-ttl` (2m) keyed by a digest of the token, as
upstream caches both; a failed call (unreachable, non-2xx, malformed answer) is not cached and fails
only the request at hand with a 401. The call itself (kubeconfig credentials, retries of transient
failures with upstream's default backoff) is `svc/apiserver/webhook_kubeconfig.py`, shared with the
webhook authorizer.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from aiohttp import web

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.token_file import bearer_token
from svc.apiserver.webhook_kubeconfig import KubeconfigWebhook, WebhookCallError
from svc.client.kubeconfig import ClientConfig, load_kubeconfig
from svc.client.tls import ssl_context
from svc.registry.admission import UserInfo

log = logging.getLogger(__name__)

VERSIONS = ("v1", "v1beta1")
REQUEST_TIMEOUT = 30.0
CACHE_SIZE = 4096


def load_webhook_config(path: str) -> ClientConfig:
    """The remote service's address and credentials; raises ValueError with a start-up message."""
    try:
        config = load_kubeconfig(path)
    except ValueError as error:
        raise ValueError(f"invalid authentication token webhook config file {path}: {error}") from None
    ssl_context(config)  # unreadable or mismatched key material fails here, at start
    return config


class WebhookTokenAuthenticator:
    def __init__(
        self,
        config: ClientConfig,
        *,
        group: str,
        version: str,
        cache_ttl: float,
        audiences: tuple[str, ...] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._webhook = KubeconfigWebhook(config, timeout=REQUEST_TIMEOUT)
        self._audiences = audiences
        self._api_version = f"{group}/{version}"
        self._ttl = cache_ttl
        self._clock = clock
        self._cache: OrderedDict[bytes, tuple[float, UserInfo | None]] = OrderedDict()

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        token = bearer_token(request)
        return None if token is None else await self.user_for_token(token)

    async def user_for_token(self, token: str) -> UserInfo | None:
        """The remote service's answer for a token, cached (TokenReview asks this too)."""
        key = hashlib.sha256(token.encode()).digest()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > self._clock():
            user = cached[1]
        else:
            user = await self._review(token)
            if self._ttl > 0:
                self._cache[key] = (self._clock() + self._ttl, user)
                self._cache.move_to_end(key)
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        if user is None:
            raise AuthenticationError("invalid bearer token")
        return user

    async def _review(self, token: str) -> UserInfo | None:
        spec: dict[str, Any] = {"token": token}
        if self._audiences:
            spec["audiences"] = list(self._audiences)
        review = {
            "apiVersion": self._api_version,
            "kind": "TokenReview",
            "metadata": {"creationTimestamp": None},
            "spec": spec,
            "status": {"user": {}},
        }
        try:
            answer = await self._webhook.post(review)
        except WebhookCallError as error:
            log.warning("token webhook call failed: %s", error)
            raise AuthenticationError(f"webhook token authenticator: {error}") from None
        user = _user_of(answer)
        if user is not None and self._audiences:
            answered = answer["status"].get("audiences") or []
            if not set(answered) & set(self._audiences):
                raise AuthenticationError("webhook token authenticator: token audiences do not intersect")
        return user

    async def close(self) -> None:
        await self._webhook.close()


def _user_of(answer: Any) -> UserInfo | None:
    status = answer.get("status") if isinstance(answer, dict) else None
    if not isinstance(status, dict):
        raise AuthenticationError("webhook token authenticator: the answer has no status")
    if status.get("authenticated") is not True:
        if status.get("error"):
            log.info("token webhook rejected a token: %s", status["error"])
        return None
    user = status.get("user")
    if not isinstance(user, dict) or not isinstance(user.get("username"), str) or not user["username"]:
        raise AuthenticationError("webhook token authenticator: the answer names no user")
    groups = user.get("groups") or []
    extra = user.get("extra") or {}
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups) or not isinstance(extra, dict):
        raise AuthenticationError("webhook token authenticator: malformed user in the answer")
    return UserInfo(
        user["username"],
        str(user.get("uid") or ""),
        tuple(groups),
        {str(k): tuple(str(v) for v in (vs if isinstance(vs, list) else [vs])) for k, vs in extra.items()},
    )
