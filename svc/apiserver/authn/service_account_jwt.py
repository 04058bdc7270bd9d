"""JSON Web Tokens of service accounts: signing with the first issuer's key, verifying against every key.

A signature check costs far more than the rest of a request's authentication (tens of microseconds
for ECDSA or RSA), so a token whose signature verified is remembered with its decoded claims, as
upstream's token cache does. Only the signature is cached: the time window and the objects the token
names are checked on every request, so an expired token or one bound to a deleted pod stops working
at once instead of a cache period later. Failures are not cached (upstream's failure TTL is 0).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import jwt
import orjson

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.service_account_keys import PrivateKey, PublicKey

Claims = dict[str, Any]
CACHE_LIMIT = 8192


class Signer:
    """Signs claims as the first issuer, naming the key id in the header as upstream."""

    def __init__(self, issuer: str, key: PrivateKey) -> None:
        self.issuer = issuer
        self._key = key

    async def sign(self, claims: Claims) -> str:
        payload = {**claims, "iss": self.issuer}
        return jwt.encode(
            payload, self._key.key, algorithm=self._key.public.alg, headers={"kid": self._key.public.kid, "typ": None}
        )


def _segment(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@functools.lru_cache(maxsize=1024)
def unverified_issuer(token: str) -> str | None:
    """The `iss` of a compact JWT before any check: which authenticator the token is meant for.
    None when the text is not a JWT at all (then no JWT authenticator has an opinion)."""
    parts = token.split(".")
    if len(parts) != 3 or token.lstrip().startswith("{"):
        return None
    try:
        claims = orjson.loads(_segment(parts[1]))
    except (ValueError, orjson.JSONDecodeError):
        return None
    issuer = claims.get("iss") if isinstance(claims, dict) else None
    return issuer if isinstance(issuer, str) else None


def _unverified_kid(token: str) -> str | None:
    try:
        kid = jwt.get_unverified_header(token).get("kid")
    except (jwt.PyJWTError, ValueError):
        return None
    return kid if isinstance(kid, str) else None


class Verifier:
    """Checks signatures against a key set, with a cache of verified tokens and their claims."""

    def __init__(self, keys: Iterable[PublicKey]) -> None:
        self.replace(keys)
        # Asked when a token names a key id we do not know (an external signer may have rotated).
        self.refresh: Callable[[], Awaitable[None]] | None = None

    def replace(self, keys: Iterable[PublicKey]) -> None:
        """A new key set; tokens verified with a key no longer in it must verify again."""
        self.keys = list({key.kid: key for key in keys}.values())
        self._by_kid: dict[str, list[PublicKey]] = {}
        for key in self.keys:
            self._by_kid.setdefault(key.kid, []).append(key)
        self._verified: dict[str, Claims] = {}

    async def verify(self, token: str) -> Claims:
        """`claims`, after a refresh of the key set when the token names an unknown key id."""
        if self.refresh is not None and token not in self._verified:
            kid = _unverified_kid(token)
            if kid and kid not in self._by_kid:
                await self.refresh()
        return self.claims(token)

    def claims(self, token: str) -> Claims:
        """The claims of a token whose signature one of the keys verifies; raises AuthenticationError."""
        found = self._verified.get(token)
        if found is not None:
            return found
        try:
            header = jwt.get_unverified_header(token)
        except (jwt.PyJWTError, ValueError) as error:  # ValueError: text that is not UTF-8
            raise AuthenticationError(f"invalid token: {error}") from None
        kid = header.get("kid")
        keys = self._by_kid.get(kid, []) if isinstance(kid, str) and kid else self.keys
        if not keys:
            raise AuthenticationError("invalid signature, no keys found")
        errors: list[str] = []
        for key in keys:
            try:
                claims = jwt.decode(
                    token,
                    key.key,
                    algorithms=[key.alg],
                    options={
                        "verify_signature": True,
                        "verify_exp": False,
                        "verify_nbf": False,
                        "verify_iat": False,
                        "verify_aud": False,
                        "verify_iss": False,
                    },
                )
            except (jwt.PyJWTError, ValueError) as error:
                errors.append(str(error) or "invalid signature")
                continue
            if len(self._verified) >= CACHE_LIMIT:
                del self._verified[next(iter(self._verified))]
            self._verified[token] = claims
            return claims
        raise AuthenticationError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
