"""Token caches: the outcome cache of bound tokens never outlives the token's time window or the objects it
names; the success cache in front of JWT issuers remembers accepted tokens for 10 s only."""

from __future__ import annotations

import asyncio

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from svc.api.brand import SVC
from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.object_lookup import Identity
from svc.apiserver.authn.service_account_jwt import Verifier
from svc.apiserver.authn.service_account_keys import PublicKey
from svc.apiserver.authn.service_account_tokens import LEEWAY, ServiceAccountTokens
from svc.apiserver.authn.tokens import CachedSuccesses, TokenResult
from svc.registry.admission import UserInfo

ISSUER = "https://issuer.example"
NOW = 1_800_000_000.0


class Objects:
    """The watch cache as the authenticator sees it: one Identity per object, replaced on change."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str, str], Identity] = {}

    async def identity(self, resource: str, namespace: str, name: str) -> Identity | None:
        return self.found.get((resource, namespace, name))


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def setup():
    key = ec.generate_private_key(ec.SECP256R1())
    objects, clock = Objects(), Clock()
    objects.found[("serviceaccounts", "ns", "robot")] = Identity("uid-1", None, {})
    tokens = ServiceAccountTokens(
        profile=SVC,
        issuers=[ISSUER],
        verifier=Verifier([PublicKey.of(key.public_key())]),
        implicit_audiences=(ISSUER,),
        lookup=objects,  # type: ignore[arg-type]
        clock=clock,
    )
    claims = {
        "iss": ISSUER,
        "aud": [ISSUER],
        "sub": "system:serviceaccount:ns:robot",
        "iat": int(NOW),
        "nbf": int(NOW),
        "exp": int(NOW) + 600,
        "svc.io": {"namespace": "ns", "serviceaccount": {"name": "robot", "uid": "uid-1"}},
    }
    return tokens, objects, clock, jwt.encode(claims, key, algorithm="ES256")


def _check(tokens: ServiceAccountTokens, token: str):
    return asyncio.run(tokens.authenticate_token(token, (ISSUER,)))


def test_a_cached_token_expires_on_time(setup) -> None:
    tokens, _, clock, token = setup
    assert _check(tokens, token).user.name == "system:serviceaccount:ns:robot"
    clock.now = NOW + 600 + LEEWAY + 1
    with pytest.raises(AuthenticationError, match="service account token has expired"):
        _check(tokens, token)


def test_a_cached_token_fails_once_its_service_account_is_replaced(setup) -> None:
    tokens, objects, _, token = setup
    assert _check(tokens, token) is not None
    objects.found[("serviceaccounts", "ns", "robot")] = Identity("uid-2", None, {})
    with pytest.raises(AuthenticationError, match="does not match claim"):
        _check(tokens, token)


def test_a_cached_outcome_is_for_the_audiences_it_was_checked_for(setup) -> None:
    tokens, _, _, token = setup
    assert _check(tokens, token) is not None
    with pytest.raises(AuthenticationError, match="invalid for the target audiences"):
        asyncio.run(tokens.authenticate_token(token, ("vault",)))


class Counting:
    """A token authenticator that accepts `good` and counts how often it was asked."""

    def __init__(self) -> None:
        self.asked = 0

    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        self.asked += 1
        return TokenResult(UserInfo("alice"), audiences) if token == "good" else None


def test_an_accepted_token_is_remembered_for_ten_seconds_per_audience_set() -> None:
    now = [NOW]
    source = Counting()
    cached = CachedSuccesses(source, clock=lambda: now[0])

    async def run() -> None:
        assert (await cached.authenticate_token("good", ("api",))).user.name == "alice"
        now[0] += 9.9
        await cached.authenticate_token("good", ("api",))
        assert source.asked == 1
        await cached.authenticate_token("good", ("other",))
        assert source.asked == 2
        now[0] += 0.2
        await cached.authenticate_token("good", ("api",))
        assert source.asked == 3

    asyncio.run(run())


def test_a_refused_token_is_asked_again() -> None:
    source = Counting()
    cached = CachedSuccesses(source, clock=lambda: NOW)

    async def run() -> None:
        assert await cached.authenticate_token("bad", ()) is None
        assert await cached.authenticate_token("bad", ()) is None

    asyncio.run(run())
    assert source.asked == 2
