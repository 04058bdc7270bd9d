"""Delegated authentication and authorization of the daemon's endpoints, as upstream's
kube-controller-manager does them: a bearer token is checked with a TokenReview and the request
with a SubjectAccessReview (`get` on the non-resource path) sent to the API server with
`--authentication-kubeconfig` and `--authorization-kubeconfig`. Paths in
`--authorization-always-allow-paths` (default the health endpoints; `/x/*` covers a prefix) are
served to anyone. Without an authentication kubeconfig every request is anonymous, and without an
authorization kubeconfig only members of system:masters are allowed, as upstream with the optional
kubeconfigs missing. Client certificates and front-proxy headers are checked first
(`delegated_certs`). A token's review is remembered for `--authentication-token-webhook-cache-ttl`,
an allowed decision for `--authorization-webhook-cache-authorized-ttl` and a refusal for
`--authorization-webhook-cache-unauthorized-ttl` (10 seconds each by default, as upstream).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from svc.api.brand import Profile
from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.feature_gates import FeatureGates
from svc.client.aio import ApiError, AsyncRestClient
from svc.client.kubeconfig import load_kubeconfig
from svc.controllers import delegated_certs
from svc.controllers.delegated_ca_follower import FollowedAuthorities
from svc.controllers.delegated_certs import CertificateOptions
from svc.machinery import status
from svc.machinery.flag_types import flag_duration

ALWAYS_ALLOW = ("/healthz", "/readyz", "/livez")
CACHE_SECONDS = 10.0
_ANONYMOUS = ("system:anonymous", ("system:unauthenticated",))
_MASTERS = "system:masters"
_AUTHENTICATED = "system:authenticated"
User = tuple[str, tuple[str, ...]]


@dataclass
class DelegationOptions:
    authentication_kubeconfig: str = ""
    authorization_kubeconfig: str = ""
    always_allow_paths: tuple[str, ...] = field(default=ALWAYS_ALLOW)
    token_cache_ttl: float = CACHE_SECONDS
    authorized_ttl: float = CACHE_SECONDS
    unauthorized_ttl: float = CACHE_SECONDS
    certificates: CertificateOptions = field(default_factory=CertificateOptions)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--authentication-svcconfig",
        "--authentication-kubeconfig",
        dest="authentication_kubeconfig",
        default="",
        help="kubeconfig of the API server that reviews tokens",
    )
    add(
        "--authorization-svcconfig",
        "--authorization-kubeconfig",
        dest="authorization_kubeconfig",
        default="",
        help="kubeconfig of the API server that authorizes requests",
    )
    add(
        "--authentication-token-webhook-cache-ttl",
        type=flag_duration,
        default=CACHE_SECONDS,
        help="how long token reviews are remembered (default 10s)",
    )
    add(
        "--authorization-webhook-cache-authorized-ttl",
        type=flag_duration,
        default=CACHE_SECONDS,
        help="how long allowed decisions are remembered (default 10s)",
    )
    add(
        "--authorization-webhook-cache-unauthorized-ttl",
        type=flag_duration,
        default=CACHE_SECONDS,
        help="how long refusals are remembered (default 10s)",
    )
    add(
        "--authorization-always-allow-paths",
        default=",".join(ALWAYS_ALLOW),
        help="paths served without authorization (default /healthz,/readyz,/livez)",
    )
    delegated_certs.add_arguments(parser)


def from_args(args: argparse.Namespace, gates: FeatureGates) -> DelegationOptions:
    """The options; ValueError (upstream's text) on a bad certificate flag."""
    paths = tuple(path for path in args.authorization_always_allow_paths.split(",") if path)
    return DelegationOptions(
        args.authentication_kubeconfig,
        args.authorization_kubeconfig,
        paths,
        token_cache_ttl=args.authentication_token_webhook_cache_ttl,
        authorized_ttl=args.authorization_webhook_cache_authorized_ttl,
        unauthorized_ttl=args.authorization_webhook_cache_unauthorized_ttl,
        certificates=delegated_certs.from_args(args, gates),
    )


def _client(path: str, agent: str) -> AsyncRestClient | None:
    return AsyncRestClient(load_kubeconfig(path), user_agent=agent) if path else None


class DelegatedAuth:
    def __init__(self, options: DelegationOptions, profile: Profile, agent: str) -> None:
        self._always = options.always_allow_paths
        self._ttls = (options.token_cache_ttl, options.authorized_ttl, options.unauthorized_ttl)
        self._authn = _client(options.authentication_kubeconfig, agent)
        self._authz = _client(options.authorization_kubeconfig, agent)
        self._authn_group = profile.group("authentication.k8s.io")
        self._authz_group = profile.group("authorization.k8s.io")
        self._users: dict[str, tuple[float, User | None]] = {}
        self._decisions: dict[tuple[User, str, str], tuple[float, bool, str]] = {}
        self._certificates = FollowedAuthorities(options.certificates, self._authn)

    async def start(self, namespace: str) -> None:
        """Load the trusted CAs (the flags, else the cluster's ConfigMap) and follow them; raises when
        the lookup fails and that is not tolerated (LookupFailed)."""
        await self._certificates.start(namespace)

    @property
    def wants_client_certificates(self) -> bool:
        return self._certificates.may_trust_certificates

    async def _certificate_user(self, request: web.BaseRequest) -> User | None:
        """The user of the first certificate authenticator that knows one; AuthenticationError when
        a certificate was presented but fails and no other authenticator succeeds."""
        failure: AuthenticationError | None = None
        for authenticator in self._certificates.authenticators:
            try:
                info = await authenticator.authenticate(request)
            except AuthenticationError as error:
                failure = failure or error
                continue
            if info is not None:
                groups = tuple(info.groups)
                return info.name, groups if _AUTHENTICATED in groups else (*groups, _AUTHENTICATED)
        if failure is not None:
            raise failure
        return None

    def _always_allowed(self, path: str) -> bool:
        return any(path == p or (p.endswith("*") and path.startswith(p[:-1])) for p in self._always)

    async def refusal(self, request: web.BaseRequest) -> status.StatusError | None:
        """Why the request may not be served, or None when it may."""
        if self._always_allowed(request.path):
            return None
        user = await self._user(request)
        if user is None:
            return status.unauthorized()
        verb = request.method.lower()
        allowed, reason = await self._authorize(user, request.path, verb)
        if allowed:
            return None
        why = f'User "{user[0]}" cannot {verb} path "{request.path}"' + (f": {reason}" if reason else "")
        return status.forbidden(None, "", why)

    async def _user(self, request: web.BaseRequest) -> User | None:
        """Who sends the request (anonymous when nothing says), or None when its credentials fail."""
        try:
            user = await self._certificate_user(request)
        except AuthenticationError:
            return None
        if user is not None:
            return user
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer ") and self._authn is not None:
            return await self._review_token(header.removeprefix("Bearer ").strip())
        return _ANONYMOUS

    async def _review_token(self, token: str) -> User | None:
        now = time.monotonic()
        cached = self._users.get(token)
        if cached is not None and cached[0] > now:
            return cached[1]
        assert self._authn is not None
        review = {
            "apiVersion": f"{self._authn_group}/v1",
            "kind": "TokenReview",
            "spec": {"token": token},
        }
        try:
            answer = await self._authn.create(f"/apis/{self._authn_group}/v1/tokenreviews", review)
        except (ApiError, ConnectionError, TimeoutError):
            return None  # not remembered: the next request asks again
        result = answer.get("status") or {}
        info = result.get("user") or {}
        user = (info.get("username", ""), tuple(info.get("groups") or ())) if result.get("authenticated") else None
        self._users[token] = (now + self._ttls[0], user)
        return user

    async def _authorize(self, user: User, path: str, verb: str) -> tuple[bool, str]:
        if _MASTERS in user[1]:
            return True, ""
        if self._authz is None:
            return False, ""
        key = (user, path, verb)
        now = time.monotonic()
        cached = self._decisions.get(key)
        if cached is not None and cached[0] > now:
            return cached[1], cached[2]
        review: dict[str, Any] = {
            "apiVersion": f"{self._authz_group}/v1",
            "kind": "SubjectAccessReview",
            "spec": {"user": user[0], "groups": list(user[1]), "nonResourceAttributes": {"path": path, "verb": verb}},
        }
        try:
            answer = await self._authz.create(f"/apis/{self._authz_group}/v1/subjectaccessreviews", review)
        except (ApiError, ConnectionError, TimeoutError) as error:
            return False, str(error)
        result = answer.get("status") or {}
        allowed, reason = result.get("allowed") is True, str(result.get("reason") or "")
        self._decisions[key] = (now + (self._ttls[1] if allowed else self._ttls[2]), allowed, reason)
        return allowed, reason

    async def close(self) -> None:
        await self._certificates.close()
        for client in (self._authn, self._authz):
            if client is not None:
                await client.close()


def refusal_response(error: status.StatusError) -> web.Response:
    return web.Response(status=error.code, body=orjson.dumps(error.status()), content_type="application/json")
