"""Bearer tokens: the token authenticator protocol, audiences, and the union that serves requests.

Upstream splits authentication of a request from authentication of a token, so that TokenReview asks
the very authenticators a request meets, with the audiences the review names. Token authenticators
that know nothing of audiences (static tokens, bootstrap tokens) accept only when the asked audiences
meet the API's own, and answer with that intersection. A presented bearer token that no authenticator
accepts fails the request ("invalid bearer token"); it never falls through to anonymous.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from aiohttp import web

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.token_file import bearer_token
from svc.machinery import wallclock
from svc.machinery.ttl_cache import TTLCache
from svc.registry.admission import UserInfo


@dataclass(frozen=True)
class TokenResult:
    user: UserInfo
    audiences: tuple[str, ...] = ()


@runtime_checkable
class TokenAuthenticator(Protocol):
    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        """The user of a token meant for one of `audiences`; None without an opinion; raises
        AuthenticationError when the token is this authenticator's but invalid."""
        ...


class UserTokens(Protocol):
    """A token source that knows nothing of audiences (static tokens, bootstrap tokens)."""

    async def user_for_token(self, token: str) -> UserInfo | None: ...


def intersect(first: Sequence[str], second: Sequence[str]) -> tuple[str, ...]:
    wanted = set(second)
    return tuple(dict.fromkeys(item for item in first if item in wanted))


class AudienceAgnostic:
    """Upstream's `WrapAudienceAgnosticToken`: the API's audiences are this source's."""

    def __init__(self, source: UserTokens, implicit: tuple[str, ...]) -> None:
        self._source = source
        self._implicit = implicit

    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        granted = self._implicit
        if audiences and self._implicit:
            granted = intersect(self._implicit, audiences)
            if not granted:
                return None
        user = await self._source.user_for_token(token)
        return None if user is None else TokenResult(user, granted)


def token_key(token: str, audiences: tuple[str, ...]) -> bytes:
    """A cache key that does not keep the token itself."""
    return hashlib.sha256("\x00".join((token, *audiences)).encode()).digest()


SUCCESS_CACHE_TTL = 10.0  # upstream's TokenSuccessCacheTTL; failures are not cached (TokenFailureCacheTTL 0)
SUCCESS_CACHE_SIZE = 4096


class CachedSuccesses:
    """Upstream's token cache in front of a costly authenticator (a JWT issuer's signature check and
    claim mappings): an accepted token is remembered for 10 s per audience set, a refused one not."""

    def __init__(self, source: TokenAuthenticator, clock: Callable[[], float] = wallclock.monotonic) -> None:
        self._source = source
        self._cache: TTLCache[bytes, TokenResult] = TTLCache(SUCCESS_CACHE_SIZE, clock)

    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        key = token_key(token, audiences)
        found, hit = self._cache.get(key)
        if found:
            return hit
        result = await self._source.authenticate_token(token, audiences)
        if result is not None:
            self._cache.put(key, result, SUCCESS_CACHE_TTL)
        return result


class TokenUnion:
    """The token authenticators in order; the first to accept wins. When none accepts, the errors of
    those that rejected become one error (upstream's aggregate: one message, or `[a, b]`)."""

    def __init__(self, authenticators: list[TokenAuthenticator], implicit: tuple[str, ...]) -> None:
        self.authenticators = authenticators
        self.implicit = implicit

    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        errors: list[str] = []
        for authenticator in self.authenticators:
            try:
                result = await authenticator.authenticate_token(token, audiences)
            except AuthenticationError as error:
                errors.append(str(error))
                continue
            if result is not None:
                return result
        if errors:
            raise AuthenticationError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
        return None

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        """A request's bearer token, checked for the API's own audiences."""
        token = bearer_token(request)
        if token is None:
            return None
        result = await self.authenticate_token(token, self.implicit)
        if result is None:
            raise AuthenticationError("invalid bearer token")
        return result.user
