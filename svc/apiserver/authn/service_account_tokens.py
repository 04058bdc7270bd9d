"""Bound service-account tokens: the claims TokenRequest signs and the checks every request makes.

The private claims sit under the profile's claim key (`kubernetes.io` upstream): the namespace, the
service account {name, uid}, the object the token is bound to (pod, secret or node {name, uid}), the
node a bound pod runs on, and `warnafter` for lifetimes extended past the requested one. A token is
valid while its signature verifies, its issuer is one of ours, its audiences meet those asked for,
the time is within [nbf, exp] give or take upstream's one-minute leeway, and the service account
and the object it is bound to still exist with the uids the token names (upstream checks these for
bound tokens always; `--service-account-lookup` concerns legacy Secret tokens only).
"""

from __future__ import annotations

import datetime
import math
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from svc.api.brand import Profile
from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.object_lookup import Identity, ObjectLookup
from svc.apiserver.authn.service_account_jwt import CACHE_LIMIT, Claims, Verifier, unverified_issuer
from svc.apiserver.authn.tokens import TokenResult, intersect
from svc.registry.admission import UserInfo

LEEWAY = 60.0
# How far an admission-injected token is extended (`--service-account-extend-token-expiration`).
EXTENDED_EXPIRATION = 365 * 24 * 3600
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"


@dataclass(frozen=True)
class _Checked:
    """A token that passed every check: valid in [starts, ends] while the objects it names stay the same."""

    audiences: tuple[str, ...]
    starts: float
    ends: float
    objects: tuple[tuple[str, str, str, Identity], ...]
    result: TokenResult


@dataclass(frozen=True)
class Ref:
    name: str
    uid: str


def service_account_user(
    namespace: str, name: str, uid: str, extra: dict[str, tuple[str, ...]] | None = None
) -> UserInfo:
    return UserInfo(
        f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}",
        uid,
        (SERVICE_ACCOUNTS_GROUP, f"{SERVICE_ACCOUNTS_GROUP}:{namespace}"),
        extra or {},
    )


def token_claims(
    profile: Profile,
    *,
    namespace: str,
    service_account: Ref,
    audiences: list[str],
    expiration_seconds: int,
    warn_after_seconds: int = 0,
    pod: Ref | None = None,
    secret: Ref | None = None,
    node: Ref | None = None,
    now: float | None = None,
) -> Claims:
    """The claims of a TokenRequest's token (all but `iss`, which the signer adds)."""
    issued = int(now if now is not None else time.time())
    private: dict[str, Any] = {
        "namespace": namespace,
        "serviceaccount": {"name": service_account.name, "uid": service_account.uid},
    }
    for key, ref in (("pod", pod), ("secret", secret), ("node", node)):
        if ref is not None:
            private[key] = {"name": ref.name, "uid": ref.uid}
    if warn_after_seconds:
        private["warnafter"] = issued + warn_after_seconds
    return {
        "aud": audiences,
        "exp": issued + expiration_seconds,
        "iat": issued,
        "nbf": issued,
        "jti": str(uuid.uuid4()),
        "sub": f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{service_account.name}",
        profile.label_domain: private,
    }


def _ref(value: Any) -> Ref | None:
    if not isinstance(value, dict):
        return None
    name, uid = value.get("name", ""), value.get("uid", "")
    if not isinstance(name, str) or not isinstance(uid, str):
        raise AuthenticationError("service account token claims could not be validated due to unexpected private claim")
    return Ref(name, uid)


def _number(claims: Claims, name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AuthenticationError(
            "service account token claims could not be validated due to unexpected validation error"
        )
    return float(value)


def _audiences(claims: Claims) -> tuple[str, ...]:
    value = claims.get("aud")
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    if value is None:
        return ()
    raise AuthenticationError("service account token claims could not be validated due to unexpected validation error")


def check_time(claims: Claims, now: float) -> None:
    """Upstream's window: expired a minute after `exp`, valid from a minute before `nbf`."""
    expiry, not_before, issued = _number(claims, "exp"), _number(claims, "nbf"), _number(claims, "iat")
    if expiry is not None and now - LEEWAY > expiry:
        raise AuthenticationError("service account token has expired")
    if not_before is not None and now + LEEWAY < not_before:
        raise AuthenticationError("service account token is not valid yet")
    if issued is not None and now + LEEWAY < issued:
        raise AuthenticationError(
            "service account token claims could not be validated due to unexpected validation error"
        )


def check_audiences(claims: Claims, requested: tuple[str, ...], implicit: tuple[str, ...]) -> tuple[str, ...]:
    """The audiences the token is good for here; a token without any is meant for the API (a legacy
    token). Raises when they miss the requested ones."""
    token_audiences = _audiences(claims) or implicit
    wanted = requested or implicit
    granted = intersect(token_audiences, wanted)
    if not granted and implicit:
        raise AuthenticationError(
            f"token audiences {_go_list(token_audiences)} is invalid for the target audiences {_go_list(wanted)}"
        )
    return granted


def _go_list(values: tuple[str, ...]) -> str:
    return "[" + " ".join(f'"{value}"' for value in values) + "]"


def deleted_before(identity: Identity, limit: float) -> bool:
    """Deleted (awaiting finalizers) since before `limit`: upstream treats such objects as gone."""
    if not identity.deletion_timestamp:
        return False
    try:
        return datetime.datetime.fromisoformat(identity.deletion_timestamp).timestamp() < limit
    except ValueError:
        return True


class ServiceAccountTokens:
    """The authenticator of bound tokens (TokenRequest's), for every configured issuer."""

    def __init__(
        self,
        *,
        profile: Profile,
        issuers: list[str],
        verifier: Verifier,
        implicit_audiences: tuple[str, ...],
        lookup: ObjectLookup,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._claim = profile.label_domain
        self._extra = {
            name: profile.label(f"authentication.kubernetes.io/{name}")
            for name in ("pod-name", "pod-uid", "node-name", "node-uid", "credential-id")
        }
        self._issuers = frozenset(issuers)
        self._verifier = verifier
        self._implicit = implicit_audiences
        self._lookup = lookup
        self._clock = clock
        self._checked: dict[str, _Checked] = {}

    async def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        checked = self._checked.get(token)
        if checked is not None and checked.audiences == audiences and await self._still_valid(checked):
            return checked.result
        if unverified_issuer(token) not in self._issuers:
            return None
        claims = await self._verifier.verify(token)
        if claims.get("iss") not in self._issuers:
            raise AuthenticationError(f'token issuer "{claims.get("iss")}" is invalid')
        granted = check_audiences(claims, audiences, self._implicit)
        now = self._clock()
        check_time(claims, now)
        private = claims.get(self._claim)
        if not isinstance(private, dict) or not isinstance(private.get("namespace"), str):
            raise AuthenticationError(
                "service account token claims could not be validated due to unexpected private claim"
            )
        namespace: str = private["namespace"]
        account = _ref(private.get("serviceaccount")) or Ref("", "")
        seen: list[tuple[str, str, str, Identity]] = []
        extra = await self._check_objects(namespace, account, private, now - LEEWAY, seen)
        jti = claims.get("jti")
        if isinstance(jti, str) and jti:
            extra[self._extra["credential-id"]] = (f"JTI={jti}",)
        result = TokenResult(service_account_user(namespace, account.name, account.uid, extra), granted)
        self._remember(token, audiences, claims, seen, result)
        return result

    def _remember(
        self,
        token: str,
        audiences: tuple[str, ...],
        claims: Claims,
        seen: list[tuple[str, str, str, Identity]],
        result: TokenResult,
    ) -> None:
        """Keep the outcome for the token's next requests, unless an object it names is being deleted
        (whether that still counts depends on the time, so it is checked afresh each time)."""
        if any(identity.deletion_timestamp for *_, identity in seen):
            return
        expiry, not_before, issued = _number(claims, "exp"), _number(claims, "nbf"), _number(claims, "iat")
        starts = max(value for value in (not_before, issued, -math.inf) if value is not None) - LEEWAY
        ends = expiry + LEEWAY if expiry is not None else math.inf
        if len(self._checked) >= CACHE_LIMIT:
            del self._checked[next(iter(self._checked))]
        self._checked[token] = _Checked(audiences, starts, ends, tuple(seen), result)

    async def _still_valid(self, checked: _Checked) -> bool:
        """Within the time window, and every object the token names is the very one checked before."""
        if not checked.starts <= self._clock() <= checked.ends:
            return False
        for resource, namespace, name, identity in checked.objects:
            if await self._lookup.identity(resource, namespace, name) is not identity:
                return False
        return True

    async def _check_objects(
        self,
        namespace: str,
        account: Ref,
        private: dict[str, Any],
        limit: float,
        seen: list[tuple[str, str, str, Identity]],
    ) -> dict[str, tuple[str, ...]]:
        found = await self._lookup.identity("serviceaccounts", namespace, account.name)
        if found is None:
            raise AuthenticationError(f'serviceaccounts "{account.name}" not found')
        if deleted_before(found, limit):
            raise AuthenticationError(f"service account {namespace}/{account.name} has been deleted")
        if found.uid != account.uid:
            raise AuthenticationError(f"service account UID ({found.uid}) does not match claim ({account.uid})")
        seen.append(("serviceaccounts", namespace, account.name, found))
        extra: dict[str, tuple[str, ...]] = {}
        secret, pod, node = _ref(private.get("secret")), _ref(private.get("pod")), _ref(private.get("node"))
        if secret is not None:
            await self._check_bound("secrets", namespace, secret, "secret", limit, seen)
        if pod is not None:
            await self._check_bound("pods", namespace, pod, "pod", limit, seen)
            extra[self._extra["pod-name"]] = (pod.name,)
            extra[self._extra["pod-uid"]] = (pod.uid,)
        if node is not None:
            if pod is None:
                await self._check_bound("nodes", "", node, "node", limit, seen)
            extra[self._extra["node-name"]] = (node.name,)
            if node.uid:
                extra[self._extra["node-uid"]] = (node.uid,)
        return extra

    async def _check_bound(
        self,
        resource: str,
        namespace: str,
        ref: Ref,
        kind: str,
        limit: float,
        seen: list[tuple[str, str, str, Identity]],
    ) -> None:
        found = await self._lookup.identity(resource, namespace, ref.name)
        if found is None or deleted_before(found, limit):
            raise AuthenticationError("service account token has been invalidated")
        if found.uid != ref.uid:
            raise AuthenticationError(
                f"{kind} UID ({found.uid}) does not match service account {kind} ref claim ({ref.uid})"
            )
        seen.append((resource, namespace, ref.name, found))
