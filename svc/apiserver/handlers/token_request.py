"""POST `serviceaccounts/<name>/token` (TokenRequest): a signed token for the service account, 201.

As upstream's `TokenREST`: `expirationSeconds` defaults to an hour, may not be under ten minutes or
over 2^32 seconds, and is cut to `--service-account-max-token-expiration` (with a warning). The
audiences default to the API's. A token may be bound to a Pod (run by this service account; its node
is named in the token too), a Secret or a Node, whose uid must match the reference's when one is
given. A pod-bound token asking for upstream's admission-injected lifetime (3607 s) for the API's
audiences is extended to a year, with `warnafter` at the requested expiry, when
`--service-account-extend-token-expiration` is on. A `metadata.uid` in the request must be the service
account's (`TokenRequestServiceAccountUIDValidation`). Nothing is stored.
"""

from __future__ import annotations

import datetime
from typing import Any

from aiohttp import web

from svc.apiserver.authn.service_account_jwt import Claims
from svc.apiserver.authn.service_account_tokens import Ref, token_claims
from svc.apiserver.authn.signer_error import SignerError
from svc.apiserver.handlers.action import read_posted_object
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status, wallclock
from svc.machinery.field_errors import FieldError, aggregate_message, invalid, required
from svc.registry.create import match_namespace

Obj = dict[str, Any]
DEFAULT_EXPIRATION = 3600
MIN_EXPIRATION = 600
MAX_EXPIRATION = 1 << 32
WARN_ONLY_EXPIRATION = 3600 + 7
_BINDABLE = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}


def _validate(spec: Obj, name: str, metadata: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    if metadata.get("name") and metadata["name"] != name:
        errors.append(invalid("metadata.name", metadata["name"], "must match the service account name if specified"))
    seconds = spec["expirationSeconds"]
    if seconds < MIN_EXPIRATION:
        errors.append(invalid("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"))
    if seconds > MAX_EXPIRATION:
        errors.append(invalid("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"))
    ref = spec.get("boundObjectRef")
    if isinstance(ref, dict) and not ref.get("name"):
        errors.append(required("spec.boundObjectRef.name"))
    return errors


async def _bound_object(scope: Scope, account: str, ref: Obj) -> tuple[str, Obj, Obj | None]:
    """The kind and object the token is bound to, and the node a bound pod runs on."""
    api_version, kind, name = ref.get("apiVersion", ""), ref.get("kind", ""), ref.get("name", "")
    group, _, version = api_version.rpartition("/")
    resource = _BINDABLE.get(kind) if not group else None
    if resource is None:
        raise status.bad_request(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
    obj = await scope.server.store_for("", resource).get(scope.namespace if resource != "nodes" else "", name)
    node = None
    if kind == "Pod":
        if (obj.get("spec") or {}).get("serviceAccountName") != account:
            raise status.bad_request(
                f'cannot bind token for serviceaccount "{account}" to pod running with different serviceaccount name.'
            )
        node_name = (obj.get("spec") or {}).get("nodeName")
        if node_name:
            try:
                node = await scope.server.store_for("", "nodes").get("", node_name)
            except status.StatusError:
                node = None
    uid = obj["metadata"].get("uid", "")
    if ref.get("uid") and ref["uid"] != uid:
        raise status.conflict(
            status.GroupResource("", kind),
            name,
            f"the UID in the bound object reference ({ref['uid']}) does not match the UID in record. "
            "The object might have been deleted and then recreated",
        )
    return kind, obj, node


def _ref(obj: Obj) -> Ref:
    return Ref(obj["metadata"]["name"], obj["metadata"].get("uid", ""))


async def _sign(signer: Any, claims: Claims) -> str:
    """A signer that fails (an external one unreachable) is the server's error, as upstream's."""
    try:
        return await signer.sign(claims)
    except SignerError as error:
        raise status.internal_error(f"failed to generate token: {error}") from None


async def token_request(scope: Scope) -> web.StreamResponse:
    server = scope.server
    tokens = server.tokens
    assert tokens is not None and tokens.signer is not None
    negotiated = scope.negotiate(allow_views=False)
    body = await read_posted_object(scope)
    # Upstream's create handler settles the namespace before TokenREST sees the request (a different
    # one is a 400 there, so TokenREST's own namespace check is never reached over HTTP).
    match_namespace(body["metadata"], True, scope.namespace)
    spec = body.setdefault("spec", {})
    spec.setdefault("expirationSeconds", DEFAULT_EXPIRATION)
    # A pointer without `omitempty`: upstream writes an unbound request's reference as null.
    spec.setdefault("boundObjectRef", None)
    if not spec.get("audiences"):
        spec["audiences"] = list(tokens.api_audiences)
    errors = _validate(spec, scope.name, body["metadata"])
    if errors:
        raise status.invalid(
            f"TokenRequest.{scope.resource.subresources['token'].group}", scope.name, errors, aggregate_message(errors)
        )
    account = await scope.store.get(scope.namespace, scope.name)
    requested_uid = body["metadata"].get("uid")
    if (
        requested_uid
        and requested_uid != account["metadata"].get("uid")
        and server.options.feature_gates.enabled("TokenRequestServiceAccountUIDValidation")
    ):
        raise status.conflict(
            status.GroupResource("", "serviceaccounts"),
            scope.name,
            f"the UID in the token request ({requested_uid}) does not match the UID of the service account "
            f"({account['metadata'].get('uid')})",
        )
    options = tokens.options
    maximum = int(options.service_account_max_token_expiration)
    if maximum and spec["expirationSeconds"] > maximum:
        scope.ctx.warn(f"requested expiration of {spec['expirationSeconds']} seconds shortened to {maximum} seconds")
        spec["expirationSeconds"] = maximum
    bound: dict[str, Ref] = {}
    pod_bound = False
    ref = spec.get("boundObjectRef")
    if isinstance(ref, dict):
        kind, obj, node = await _bound_object(scope, scope.name, ref)
        bound[kind.lower()] = _ref(obj)
        pod_bound = kind == "Pod"
        if node is not None:
            bound["node"] = _ref(node)
    expiration = spec["expirationSeconds"]
    warn_after = 0
    api_audiences = set(tokens.api_audiences)
    if (
        options.service_account_extend_token_expiration
        and pod_bound
        and expiration == WARN_ONLY_EXPIRATION
        and set(spec["audiences"]) <= api_audiences
    ):
        warn_after, expiration = expiration, int(tokens.max_extended_expiration)
    now = wallclock.now()
    claims = token_claims(
        server.profile,
        namespace=scope.namespace,
        service_account=_ref(account),
        audiences=list(spec["audiences"]),
        expiration_seconds=expiration,
        warn_after_seconds=warn_after,
        pod=bound.get("pod"),
        secret=bound.get("secret"),
        node=bound.get("node"),
        now=now,
    )
    expires = datetime.datetime.fromtimestamp(int(now) + spec["expirationSeconds"], datetime.UTC)
    body["metadata"].setdefault("name", scope.name)
    body["metadata"]["creationTimestamp"] = None
    body["status"] = {
        "token": await _sign(tokens.signer, claims),
        "expirationTimestamp": expires.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    return scope.respond(201, body, negotiated)
