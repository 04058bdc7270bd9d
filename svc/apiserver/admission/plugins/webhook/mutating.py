"""MutatingAdmissionWebhook: webhooks called in order, each seeing the previous one's changes.

A webhook answers with a JSON Patch against the object in the version its rule matched; the
patched object replaces the request's object (converted back to the requested version) and is
validated by the store afterwards like any other input. Reinvocation follows upstream's context:
a webhook with `reinvocationPolicy: IfNeeded` that ran before a later change to the object (by
another webhook, or by an in-tree plugin in the chain's second pass) is called once more in that
second pass; a webhook is never called for the first time in the second pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
import orjson

from svc.api.brand import Profile
from svc.apiserver.admission.matching import is_exempt_configuration
from svc.apiserver.admission.metrics import MUTATING
from svc.apiserver.admission.plugins.webhook.calls import Caller, CallError, Invocation
from svc.apiserver.admission.plugins.webhook.hooks import HookSource
from svc.apiserver.admission.plugins.webhook.review import denial
from svc.apiserver.admission.plugins.webhook.versions import carries_parent_kind, convert
from svc.machinery import status
from svc.registry.admission import Attributes

PLUGIN_NAME = "MutatingAdmissionWebhook"
MUTATION_ANNOTATION = "mutation.webhook.admission.k8s.io/"
PATCH_ANNOTATION = "patch.webhook.admission.k8s.io/"
FAILED_OPEN_ANNOTATION = "failed-open.mutation.webhook.admission.k8s.io/"


def _copy(obj: Any) -> Any:
    return None if obj is None else orjson.loads(orjson.dumps(obj))


@dataclass
class _Reinvocation:
    """upstream's webhookReinvokeContext."""

    last_output: Any = None
    invoked: set[str] = field(default_factory=set)
    reinvoke: set[str] = field(default_factory=set)

    def require_reinvoking_invoked(self) -> None:
        self.reinvoke |= self.invoked
        self.invoked = set()


class MutatingWebhooks:
    def __init__(self, source: HookSource, caller: Caller, profile: Profile) -> None:
        self._source = source
        self._caller = caller
        self._profile = profile

    async def admit(self, attributes: Attributes) -> None:
        if is_exempt_configuration(attributes):
            return
        hooks = await self._source.hooks()
        if not hooks:
            return
        context = attributes.reinvocation
        state = context.values.setdefault(PLUGIN_NAME, _Reinvocation())
        if context.is_reinvoke and state.last_output != attributes.object:
            state.require_reinvoking_invoked()  # an in-tree plugin changed the object in the second pass
        round_ = 1 if context.is_reinvoke else 0
        try:
            for index, hook in enumerate(hooks):
                invocation = await self._caller.invocation(hook, attributes)
                if invocation is None:
                    continue
                if context.is_reinvoke and hook.uid not in state.reinvoke:
                    continue
                key = f"round_{round_}_index_{index}"
                try:
                    changed = await self._call(invocation, attributes, key)
                except CallError as error:
                    if not hook.ignores_failures:
                        raise status.internal_error(str(error)) from None
                    attributes.annotations[FAILED_OPEN_ANNOTATION + key] = hook.name
                    changed = False
                if changed:
                    state.require_reinvoking_invoked()
                    context.should_reinvoke = True
                if hook.reinvocation_policy == "IfNeeded":
                    state.invoked.add(hook.uid)
        finally:
            state.last_output = _copy(attributes.object)

    async def _call(self, invocation: Invocation, attributes: Attributes, key: str) -> bool:
        """Calls one webhook and applies its patch; True when the object changed."""
        hook = invocation.hook
        changed = False
        started = time.perf_counter()
        try:
            try:
                answer = await self._caller.call(invocation, attributes, mutating=True)
            except (CallError, status.StatusError) as error:
                self._caller.record(hook, MUTATING, attributes, started, failure=error)
                raise
            for name, value in answer.audit_annotations.items():
                attributes.annotations[f"{hook.name}/{name}"] = value
            for warning in answer.warnings:
                attributes.warn(warning)
            denied = None if answer.allowed else denial(hook.name, answer.result)
            self._caller.record(hook, MUTATING, attributes, started, denied=denied)
            if denied is not None:
                raise denied
            if not answer.patch:
                return False
            try:
                operations = orjson.loads(answer.patch)
                patch = jsonpatch.JsonPatch(operations)
            except (orjson.JSONDecodeError, jsonpatch.JsonPatchException, TypeError) as error:
                raise CallError(hook.name, f"received undecodable patch in webhook response: {error}") from None
            if not operations:
                return False
            if invocation.object is None:
                raise status.internal_error(
                    f'admission webhook "{hook.name}" attempted to modify the object, '
                    "which is not supported for this operation"
                )
            if answer.patch_type != "JSONPatch":
                raise CallError(hook.name, f'unsupported patch type "{answer.patch_type}"')
            try:
                patched = patch.apply(invocation.object)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as error:
                raise status.internal_error(str(error)) from None
            if not isinstance(patched, dict):
                raise status.internal_error("the patched object is not an object")
            changed = patched != invocation.object
            record = {"configuration": hook.configuration, "webhook": hook.name, "patch": operations}
            attributes.annotations[PATCH_ANNOTATION + key] = orjson.dumps({**record, "patchType": "JSONPatch"}).decode()
            self._replace(attributes, invocation, patched)
            return changed
        finally:
            attributes.annotations[MUTATION_ANNOTATION + key] = orjson.dumps(
                {"configuration": hook.configuration, "webhook": hook.name, "mutated": changed}
            ).decode()

    def _replace(self, attributes: Attributes, invocation: Invocation, patched: dict[str, Any]) -> None:
        """The request's object becomes the patched one, in the version the client used (in place:
        the store holds the same dict)."""
        resource = attributes.resource
        if carries_parent_kind(attributes) and invocation.matched.resource != resource:
            patched = convert(patched, invocation.matched.resource, resource, self._profile) or patched
        assert attributes.object is not None
        attributes.object.clear()
        attributes.object.update(patched)
