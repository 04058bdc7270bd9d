"""Webhook token authentication: a remote service named in a kubeconfig reviews bearer tokens.

Each unknown token is POSTed as a TokenReview (`--authentication-token-webhook-version`, v1 or
v1beta1) to the kubeconfig's server with its CA and client credentials. Answers, authenticated or
not, are cached for `--authentication-token-webhook-cache-ttl` (2m) keyed by a digest of the token
and the audiences asked for, as upstream caches both; a failed call (unreachable, non-2xx, malformed
answer) is not cached and fails only the request at hand with a 401. The call itself (kubeconfig
credentials, retries of transient failures with upstream's default backoff) is
`svc/apiserver/webhook_kubeconfig.py`, shared with the webhook authorizer.

Audiences as upstream: a review carries the audiences the request (or a TokenReview) asks for, and the
answer must name one of them; an answer naming none counts as the API's own (`--api-audiences`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.tokens import TokenResult, intersect, token_key
from svc.apiserver.webhook_kubeconfig import KubeconfigWebhook, WebhookCallError
from svc.client.kubeconfig import ClientConfig, load_kubeconfig
from svc.client.tls import ssl_context
from svc.machinery import wallclock
from svc.machinery.ttl_cache import TTLCache
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
        implicit_audiences: tuple[str, ...] = (),
        clock: Callable[[], float] = wallclock.monotonic,
    ) -> None:
        self._webhook = KubeconfigWebhook(config, timeout=REQUEST_TIMEOUT)
        self._implicit = implicit_audiences
        self._api_version = f"{group}/{version}"
        self._ttl = cache_ttl
        self._cache: TTLCache[bytes, TokenResult | None] = TTLCache(CACHE_SIZE, clock)

    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        """The remote service's answer for a token meant for `audiences`, cached (TokenReview asks
        this too); a token the service does not authenticate fails the request."""
        key = token_key(token, audiences)
        found, result = self._cache.get(key)
        if not found:
            result = await self._review(token, audiences)
            self._cache.put(key, result, self._ttl)
        if result is None:
            raise AuthenticationError("invalid bearer token")
        return result

    async def _review(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        spec: dict[str, Any] = {"token": token}
        if audiences:
            spec["audiences"] = list(audiences)
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
        if user is None:
            return None
        if not audiences:
            return TokenResult(user)
        granted = intersect(audiences, answer["status"].get("audiences") or self._implicit)
        return TokenResult(user, granted) if granted else None

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
