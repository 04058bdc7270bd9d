"""An OIDC provider's signing keys: discovery document, then its JWKS, over HTTPS with its own CA.

Fetched at start (again on first use if that failed) and cached. A token signed with a key id the
cache does not hold makes the set refetch once (the provider rotated its keys), but not more often
than `REFRESH_INTERVAL`, and concurrent requests share one fetch in flight, so a stream of tokens with
made-up key ids cannot turn the API server into a load generator against the provider. The
discovered `issuer` must equal the configured one, as OIDC discovery requires (also when
`discoveryURL` points elsewhere).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Callable
from typing import Any

import aiohttp
import jwt

from svc.machinery import wallclock

log = logging.getLogger(__name__)

REFRESH_INTERVAL = 10.0
"""Seconds between refetches caused by unknown key ids."""
FETCH_TIMEOUT = 10.0


class KeySetError(Exception):
    pass


class ProviderKeys:
    def __init__(
        self,
        issuer_url: str,
        *,
        discovery_url: str = "",
        ca_pem: str = "",
        clock: Callable[[], float] = wallclock.monotonic,
    ) -> None:
        self.issuer_url = issuer_url
        self.discovery_url = discovery_url or issuer_url.rstrip("/") + "/.well-known/openid-configuration"
        self.ca_pem = ca_pem
        self._ssl = ssl.create_default_context(cadata=ca_pem) if ca_pem else ssl.create_default_context()
        self._clock = clock
        self._keys: dict[str, jwt.PyJWK] = {}
        self._unnamed: list[jwt.PyJWK] = []
        self._loaded = False
        self._attempted_at: float | None = None
        self._inflight: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None
        self.fetches = 0

    async def key_for(self, kid: str | None) -> list[jwt.PyJWK]:
        """The keys that may have signed a token with this key id (all unnamed keys when it has none)."""
        found = self._lookup(kid) if self._loaded else []
        if found:
            return found
        recent = self._attempted_at is not None and self._clock() - self._attempted_at < REFRESH_INTERVAL
        if recent and (self._inflight is None or self._inflight.done()):
            if not self._loaded:
                raise KeySetError("oidc: authenticator not initialized")
            return found
        await self._refresh()
        return self._lookup(kid)

    async def prefetch(self) -> None:
        """Load the keys ahead of the first token, as upstream initialises its verifiers at start;
        a failure is logged and retried on demand (rate limited)."""
        with contextlib.suppress(KeySetError):
            await self._refresh()

    def _lookup(self, kid: str | None) -> list[jwt.PyJWK]:
        if kid is None:
            return list(self._keys.values()) + self._unnamed
        key = self._keys.get(kid)
        return [key] if key is not None else []

    async def _refresh(self) -> None:
        if self._inflight is None or self._inflight.done():
            self._inflight = asyncio.ensure_future(self._fetch())
        await asyncio.shield(self._inflight)

    async def _fetch(self) -> None:
        # A failed fetch counts for the rate limit too: a provider that is down is not hammered.
        self._attempted_at = self._clock()
        try:
            document = await self._get_json(self.discovery_url)
            if not isinstance(document, dict):
                raise KeySetError("oidc: discovery document is not a JSON object")
            if document.get("issuer") != self.issuer_url:
                raise KeySetError(
                    f'oidc: issuer did not match the issuer returned by provider, expected "{self.issuer_url}" '
                    f'got "{document.get("issuer")}"'
                )
            jwks_uri = document.get("jwks_uri")
            if not isinstance(jwks_uri, str) or not jwks_uri:
                raise KeySetError("oidc: discovery document has no jwks_uri")
            key_set = await self._get_json(jwks_uri)
            keys, unnamed = _parse_keys(key_set)
        except KeySetError as error:
            log.warning("fetching keys of %s failed: %s", self.issuer_url, error)
            raise
        self._keys, self._unnamed = keys, unnamed
        self._loaded = True
        self.fetches += 1

    async def _get_json(self, url: str) -> Any:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=self._ssl), timeout=aiohttp.ClientTimeout(total=FETCH_TIMEOUT)
            )
        try:
            async with self._session.get(url, headers={"Accept": "application/json"}) as response:
                if response.status != 200:
                    body = (await response.text(errors="replace"))[:200]
                    raise KeySetError(f"oidc: get {url}: {response.status} {response.reason}: {body}")
                return await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            raise KeySetError(f"oidc: get {url}: {error or type(error).__name__}") from None

    async def close(self) -> None:
        if self._inflight is not None and not self._inflight.done():
            self._inflight.cancel()
        if self._session is not None:
            await self._session.close()


def _parse_keys(key_set: Any) -> tuple[dict[str, jwt.PyJWK], list[jwt.PyJWK]]:
    if not isinstance(key_set, dict) or not isinstance(key_set.get("keys"), list):
        raise KeySetError("oidc: the JWKS is not a JSON object with a keys array")
    keys: dict[str, jwt.PyJWK] = {}
    unnamed: list[jwt.PyJWK] = []
    for entry in key_set["keys"]:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK(entry)
        except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError):
            continue  # a key type or algorithm this server cannot use; the others still serve
        if isinstance(entry.get("kid"), str):
            keys[entry["kid"]] = key
        else:
            unnamed.append(key)
    return keys, unnamed
