"""The Webhook authorizer: a remote service answers a SubjectAccessReview for each request.

The review carries the user and the request's attributes, the list's field and label selectors
included (as upstream's AuthorizeWithSelectors sends them: `=`/`==` become `In`, `!=` `NotIn`,
label `exists`/`!` `Exists`/`DoesNotExist`, `gt`/`lt` are left out since dropping an ANDed term
only widens the question). `allowed` allows, `denied` denies and stops the chain, anything else is
no opinion; answers are cached by the review's spec, allowed ones for the authorized TTL (5m) and
the others for the unauthorized TTL (30s). A failed call is not cached: it raises `AuthorizerError`
with the failure policy's decision (no opinion for the flags, NoOpinion or Deny in
--authorization-config), which the request filter turns into a 500 as upstream. Match conditions
(CEL over `request`, the v1 review spec) are checked first:
any false one skips the webhook with no opinion; an evaluation error is a failure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from svc.api.brand import Profile
from svc.apiserver.authz.authorizer import Attributes, AuthorizerError, Decision
from svc.apiserver.authz.metrics import AuthorizationMetrics
from svc.apiserver.webhook_kubeconfig import KubeconfigWebhook, WebhookCallError, WebhookTimeout
from svc.machinery import wallclock
from svc.machinery.cel.environment import Program
from svc.machinery.cel.values import CelError
from svc.machinery.labels import Operator
from svc.machinery.ttl_cache import TTLCache

log = logging.getLogger(__name__)

VERSIONS = ("v1", "v1beta1")
CACHE_SIZE = 8192
MATCH_CONDITION_COST_LIMIT = 1_000_000

_FIELD_OPERATORS = {Operator.EQUALS: "In", Operator.DOUBLE_EQUALS: "In", Operator.NOT_EQUALS: "NotIn"}
_LABEL_OPERATORS = {
    Operator.EQUALS: "In",
    Operator.DOUBLE_EQUALS: "In",
    Operator.IN: "In",
    Operator.NOT_EQUALS: "NotIn",
    Operator.NOT_IN: "NotIn",
    Operator.EXISTS: "Exists",
    Operator.DOES_NOT_EXIST: "DoesNotExist",
}


@dataclass(frozen=True)
class WebhookSettings:
    version: str = "v1"
    authorized_ttl: float = 300.0
    unauthorized_ttl: float = 30.0
    cache_authorized: bool = True
    cache_unauthorized: bool = True
    failure_policy: Decision = Decision.NO_OPINION
    match_conditions: tuple[Program, ...] = field(default=())
    name: str = "webhook"


def review_spec(attributes: Attributes) -> dict[str, Any]:
    """The v1 SubjectAccessReview spec of a request (upstream's field names and omissions)."""
    user = attributes.user
    spec: dict[str, Any] = {"user": user.name}
    if user.groups:
        spec["groups"] = list(user.groups)
    if user.extra:
        spec["extra"] = {key: list(values) for key, values in user.extra.items()}
    if user.uid:
        spec["uid"] = user.uid
    if not attributes.is_resource_request:
        spec["nonResourceAttributes"] = {"path": attributes.path, "verb": attributes.verb}
        return spec
    resource: dict[str, Any] = {"verb": attributes.verb}
    for key, value in (
        ("namespace", attributes.namespace),
        ("group", attributes.api_group),
        ("version", attributes.api_version),
        ("resource", attributes.resource),
        ("subresource", attributes.subresource),
        ("name", attributes.name),
    ):
        if value:
            resource[key] = value
    fields = [
        {"key": r.field, "operator": _FIELD_OPERATORS[r.operator], "values": [r.value]}
        for r in attributes.field_requirements
        if r.operator in _FIELD_OPERATORS
    ]
    if fields:
        resource["fieldSelector"] = {"requirements": fields}
    labels = []
    for requirement in attributes.label_requirements:
        operator = _LABEL_OPERATORS.get(requirement.operator)
        if operator is not None:
            entry: dict[str, Any] = {"key": requirement.key, "operator": operator}
            if requirement.values and operator in ("In", "NotIn"):
                entry["values"] = list(requirement.values)
            labels.append(entry)
    if labels:
        resource["labelSelector"] = {"requirements": labels}
    spec["resourceAttributes"] = resource
    return spec


def _versioned(spec: dict[str, Any], version: str) -> dict[str, Any]:
    """v1beta1 names the groups `group`."""
    if version == "v1beta1" and "groups" in spec:
        spec = dict(spec)
        spec["group"] = spec.pop("groups")
    return spec


class WebhookAuthorizer:
    def __init__(
        self,
        client: KubeconfigWebhook,
        settings: WebhookSettings,
        *,
        profile: Profile,
        clock: Callable[[], float] = wallclock.monotonic,
        metrics: AuthorizationMetrics | None = None,
    ) -> None:
        self._client = client
        self._metrics = metrics
        self._settings = settings
        self._api_version = f"{profile.group('authorization.k8s.io')}/{settings.version}"
        self._cache: TTLCache[bytes, dict[str, Any]] = TTLCache(CACHE_SIZE, clock)

    @property
    def calls(self) -> int:
        return self._client.calls

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]:
        spec = review_spec(attributes)
        if self._settings.match_conditions:
            try:
                if not _all_match(self._settings.match_conditions, spec):
                    return Decision.NO_OPINION, ""
            except CelError as error:
                failure = f"match condition evaluation error: {error}"
                raise AuthorizerError(failure, self._settings.failure_policy) from None
        key = orjson.dumps(spec, option=orjson.OPT_SORT_KEYS)
        found, cached = self._cache.get(key)
        if found:
            assert cached is not None
            answer = cached
        else:
            answer = await self._call(spec)
            self._remember(key, answer)
        reason = answer.get("reason") or ""
        if answer.get("allowed") is True:
            return Decision.ALLOW, reason
        if answer.get("denied") is True:
            return Decision.DENY, reason
        return Decision.NO_OPINION, reason

    async def _call(self, spec: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        result = "success"
        try:
            return await self._review(spec)
        except WebhookCallError as error:
            result = "timeout" if isinstance(error, WebhookTimeout) else "error"
            log.error("Failed to make webhook authorizer request: %s", error)
            raise AuthorizerError(str(error), self._settings.failure_policy) from None
        finally:
            if self._metrics is not None:
                fail_open = result != "success" and self._settings.failure_policy is Decision.NO_OPINION
                seconds = time.perf_counter() - started
                self._metrics.record_webhook(self._settings.name, result, seconds, fail_open=fail_open)

    def _remember(self, key: bytes, answer: dict[str, Any]) -> None:
        allowed = answer.get("allowed") is True
        on = self._settings.cache_authorized if allowed else self._settings.cache_unauthorized
        ttl = self._settings.authorized_ttl if allowed else self._settings.unauthorized_ttl
        if on:
            self._cache.put(key, answer, ttl)

    async def _review(self, spec: dict[str, Any]) -> dict[str, Any]:
        review = {
            "apiVersion": self._api_version,
            "kind": "SubjectAccessReview",
            "metadata": {"creationTimestamp": None},
            "spec": _versioned(spec, self._settings.version),
            "status": {"allowed": False},
        }
        answer = await self._client.post(review)
        status = answer.get("status") if isinstance(answer, dict) else None
        if not isinstance(status, dict):
            raise WebhookCallError("the answer has no status")
        kind = (answer.get("apiVersion"), answer.get("kind"))
        if kind != (self._api_version, "SubjectAccessReview") and kind != (None, None):
            raise WebhookCallError(f"expected a {self._api_version} SubjectAccessReview, got {kind[0]} {kind[1]}")
        return status

    async def close(self) -> None:
        await self._client.close()


def _all_match(conditions: Sequence[Program], spec: dict[str, Any]) -> bool:
    """Every condition must hold; the first false one decides (upstream stops there too)."""
    activation = {"request": spec}
    for program in conditions:
        result = program.evaluate(activation, cost_limit=MATCH_CONDITION_COST_LIMIT)
        if result is not True:
            if result is not False:
                raise CelError(f"expression '{program.expression}' resulted in error: expected bool")
            return False
    return True
