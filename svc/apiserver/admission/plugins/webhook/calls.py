"""Whether to call one webhook for one request, and the call itself, as upstream's generic webhook
and its dispatchers do it.

Errors come in upstream's three kinds, because the failure policy treats them differently:
`CallError` (no usable answer: transport, timeout, a protocol violation) obeys `failurePolicy`;
a denial is the webhook's verdict (`review.denial`); a `StatusError` raised here (a dry run the
webhook cannot take, a namespace that does not exist, match conditions that failed to evaluate)
rejects the request whatever the policy says.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from svc.api.brand import Profile
from svc.api.omit_empty import View, typed_pruner
from svc.apiserver.admission.matching import Matched, RequestMatcher
from svc.apiserver.admission.metrics import CALLING_WEBHOOK_ERROR, INTERNAL_ERROR, NO_ERROR, AdmissionMetrics
from svc.apiserver.admission.plugins.webhook.conditions import AsyncDecide, ConditionError, ConditionInput
from svc.apiserver.admission.plugins.webhook.hooks import Hook
from svc.apiserver.admission.plugins.webhook.review import (
    UPSTREAM_GROUP,
    Answer,
    InvalidResponse,
    read_answer,
    request_fields,
    review,
    review_version,
)
from svc.apiserver.admission.plugins.webhook.versions import carries_parent_kind, convert
from svc.apiserver.webhook_client import WebhookCallError, WebhookClient
from svc.machinery import status
from svc.registry.admission import Attributes

Obj = dict[str, Any]
_NO_SIDE_EFFECTS_ON_DRY_RUN = frozenset({"None", "NoneOnDryRun"})


class CallError(Exception):
    """upstream's ErrCallingWebhook: `failed calling webhook "<name>": <reason>`."""

    def __init__(self, webhook: str, reason: str) -> None:
        super().__init__(f'failed calling webhook "{webhook}": {reason}')


@dataclass
class Invocation:
    """A webhook to call and the request as it sees it (objects in the version its rule matched)."""

    hook: Hook
    matched: Matched
    object: Obj | None
    old_object: Obj | None


class Caller:
    def __init__(
        self,
        *,
        matcher: RequestMatcher,
        client: WebhookClient,
        profile: Profile,
        authorize: AsyncDecide | None = None,
        metrics: AdmissionMetrics | None = None,
    ) -> None:
        self._matcher = matcher
        self._client = client
        self._profile = profile
        self._go_writes = {view: typed_pruner(profile.upstream_group, view) for view in (View.SENT, View.STORED)}
        self._authorize = authorize
        self._metrics = metrics

    def record(
        self,
        hook: Hook,
        kind: str,
        attributes: Attributes,
        started: float,
        *,
        denied: status.StatusError | None = None,
        failure: Exception | None = None,
    ) -> None:
        """Count one call that began at `started` (perf_counter) as upstream's dispatchers do: the
        webhook allowed, `denied` the request, or failed (a CallError is ignored under
        `failurePolicy: Ignore` and a rejection otherwise; another failure is an internal error)."""
        metrics = self._metrics
        if metrics is None:
            return
        operation, seconds = attributes.operation, time.perf_counter() - started
        if denied is not None:
            metrics.webhook(hook.name, kind, operation, denied.code, True, seconds)
            metrics.rejection(hook.name, kind, operation, NO_ERROR, denied.code)
        elif failure is None:
            metrics.webhook(hook.name, kind, operation, 200, False, seconds)
        else:
            metrics.webhook(hook.name, kind, operation, 0, True, seconds)
            if not isinstance(failure, CallError):
                metrics.rejection(hook.name, kind, operation, INTERNAL_ERROR, 0)
            elif hook.ignores_failures:
                metrics.fail_open(hook.name, kind)
            else:
                metrics.rejection(hook.name, kind, operation, CALLING_WEBHOOK_ERROR, 0)

    def versioned(self, attributes: Attributes, matched: Matched, obj: Obj | None) -> Obj | None:
        """`obj` as the matched version serves it."""
        if not carries_parent_kind(attributes):
            return obj
        return convert(obj, attributes.resource, matched.resource, self._profile)

    def as_go_writes(self, obj: Obj | None, view: View) -> Obj | None:
        """A copy of `obj` as upstream's JSON of its Go object: the request's object as decoding left it
        (`View.SENT`: a list sent `[]` stays, an absent one is null, an absent struct `{}`), the old
        one as storage gives it (`View.STORED`)."""
        if obj is None:
            return None
        copied: Obj = orjson.loads(orjson.dumps(obj))
        self._go_writes[view](copied)
        return copied

    async def invocation(self, hook: Hook, attributes: Attributes) -> Invocation | None:
        """The call to make, None when the webhook does not apply; raises StatusError when its
        namespace or object selector or its match conditions cannot be evaluated."""
        matched = await self._matcher.matches(hook.criteria, attributes)
        if matched is None:
            return None
        with attributes.sent_empty.put_back():  # the empty lists an update's checks saw as null
            obj = self.as_go_writes(self.versioned(attributes, matched, attributes.object), View.SENT)
        old = self.as_go_writes(self.versioned(attributes, matched, attributes.old_object), View.STORED)
        if hook.conditions:
            facts = ConditionInput(
                object=obj,
                old_object=old,
                request=request_fields(attributes, matched, self._profile.meta_group),
                user=attributes.user.name,
                groups=attributes.user.groups,
                group=attributes.resource.group,
                resource=attributes.resource.name,
                subresource=attributes.subresource,
                namespace=attributes.namespace,
                name=attributes.name,
            )
            try:
                if not await hook.conditions.matches(facts, self._authorize):
                    return None
            except ConditionError as error:
                raise status.forbidden(attributes.resource.group_resource, attributes.name, str(error)) from None
        return Invocation(hook, matched, obj, old)

    async def call(self, invocation: Invocation, attributes: Attributes, *, mutating: bool) -> Answer:
        """POST an AdmissionReview and read the answer; raises CallError or a StatusError."""
        hook = invocation.hook
        if attributes.dry_run:
            if hook.side_effects is None:
                raise CallError(hook.name, "Webhook SideEffects is nil")
            if hook.side_effects not in _NO_SIDE_EFFECTS_ON_DRY_RUN:
                raise status.bad_request(f'admission webhook "{hook.name}" does not support dry run')
        version = review_version(hook.review_versions)
        if version is None:
            reason = f"webhook does not accept known AdmissionReview versions: {list(hook.review_versions)}"
            raise CallError(hook.name, f"could not create admission objects: {reason}")
        uid = str(uuid.uuid4())
        group = self._profile.group(UPSTREAM_GROUP)
        body = review(
            group,
            version,
            uid,
            request_fields(attributes, invocation.matched, self._profile.meta_group),
            invocation.object,
            invocation.old_object,
        )
        try:
            answer = await self._client.post_json(hook.client, body, timeout_seconds=hook.timeout)
        except WebhookCallError as error:
            raise CallError(hook.name, f"failed to call webhook: {error}") from None
        try:
            return read_answer(answer, group=group, uid=uid, version=version, mutating=mutating)
        except InvalidResponse as error:
            raise CallError(hook.name, f"received invalid webhook response: {error}") from None
