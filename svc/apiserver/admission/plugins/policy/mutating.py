"""The MutatingAdmissionPolicy plugin: every policy whose matchConstraints select the request, with
each of its bindings whose matchResources do, mutates the object once per parameter object.

The object is changed in place (the registry keeps its own reference to it). Reinvocation follows
the chain's context as upstream's: a change asks the chain for a second mutating pass, in which a
policy with `reinvocationPolicy: IfNeeded` that ran before a later change (by another policy, a
webhook or an in-tree plugin) runs once more; nothing runs for the first time in that pass. A
mutation that fails rejects the request under `failurePolicy: Fail` and is skipped under `Ignore`:
every failure is collected and the request is refused once, after all policies ran, with the first
failure as the message (`policy '<p>' with binding '<b>' denied request: ...`, reason Invalid for a
mutation or match condition, Forbidden for a configuration error) and each as a cause, as upstream.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from svc.api.schemas import schema_for
from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import (
    NamespaceGetter,
    RequestMatcher,
    is_exempt_configuration,
)
from svc.apiserver.admission.plugins.policy.activation import evaluate, request_values
from svc.apiserver.admission.plugins.policy.expressions import (
    PARAMS,
)
from svc.apiserver.admission.plugins.policy.mutating_policy import MutatingPolicy, MutationError
from svc.apiserver.admission.plugins.policy.objects import Objects
from svc.apiserver.admission.plugins.policy.params import ParamError, collect_params
from svc.apiserver.admission.plugins.policy.request import admission_request
from svc.apiserver.admission.plugins.policy.source import Binding, PolicySource
from svc.apiserver.authz.authorizer import Authorizer
from svc.machinery import status
from svc.machinery.apply.shapes import shape_of
from svc.registry.admission import Attributes

PLUGIN_NAME = "MutatingAdmissionPolicy"


@dataclass(frozen=True)
class _PolicyError:
    """A failure of one policy (and binding) on this request; upstream's generic PolicyError."""

    policy: MutatingPolicy
    binding: str
    message: str
    reason: str = ""

    def __str__(self) -> str:
        if self.binding:
            return f"policy '{self.policy.name}' with binding '{self.binding}' denied request: {self.message}"
        return f'policy "{self.policy.name}" denied request: {self.message}'


@dataclass
class _Reinvocation:
    """Which IfNeeded policy bindings ran before a later change to the object (upstream's
    policyReinvokeContext): the chain's second pass runs exactly those again."""

    last_output: Any = None
    invoked: set[tuple[str, str]] = field(default_factory=set)
    reinvoke: set[tuple[str, str]] = field(default_factory=set)

    def require_reinvoking_invoked(self) -> None:
        self.reinvoke |= self.invoked
        self.invoked = set()


class MutatingAdmissionPolicy:
    def __init__(
        self,
        source: PolicySource[MutatingPolicy],
        *,
        matcher: RequestMatcher,
        objects: Objects,
        get_namespace: NamespaceGetter,
        authorizer: Authorizer,
    ) -> None:
        self._authorizer = authorizer
        self._source = source
        self._matcher = matcher
        self._objects = objects
        self._get_namespace = get_namespace

    async def admit(self, attributes: Attributes) -> None:
        if attributes.object is None or is_exempt_configuration(attributes):
            return
        bound = await self._source.current()
        if not bound:
            return
        shape = shape_of(schema_for(attributes.resource.definition))
        request = admission_request(attributes)
        context = attributes.reinvocation
        state = context.values.setdefault(PLUGIN_NAME, _Reinvocation())
        if context.is_reinvoke and state.last_output != attributes.object:
            state.require_reinvoking_invoked()  # another plugin changed the object in the second pass
        errors: list[_PolicyError] = []
        failures: list[_PolicyError] = []
        try:
            for entry in bound:
                policy = entry.policy
                if not await self._policy_matches(policy, attributes, errors):
                    continue
                for binding in entry.bindings:
                    key = (policy.name, binding.name)
                    if context.is_reinvoke and key not in state.reinvoke:
                        continue
                    if await self._run(policy, binding, attributes, request, shape, errors, failures):
                        state.require_reinvoking_invoked()
                        context.should_reinvoke = True
                    if policy.reinvoke:
                        state.invoked.add(key)
        finally:
            state.last_output = copy.deepcopy(attributes.object)
        _refuse(attributes, [error for error in errors + failures if error.policy.fail])

    async def _policy_matches(self, policy: MutatingPolicy, attributes: Attributes, errors: list[_PolicyError]) -> bool:
        try:
            return await self._matcher.matches(policy.criteria, attributes) is not None
        except status.StatusError as err:
            errors.append(_PolicyError(policy, "", f"failed to configure policy: {err}"))
            return False

    async def _run(
        self,
        policy: MutatingPolicy,
        binding: Binding,
        attributes: Attributes,
        request: dict[str, Any],
        shape: Any,
        errors: list[_PolicyError],
        failures: list[_PolicyError],
    ) -> int:
        """Applies one binding; returns how many times it changed the object. A configuration error
        goes to `errors`, a failed mutation to `failures` (upstream reports them in that order)."""
        try:
            if binding.criteria is not None and await self._matcher.matches(binding.criteria, attributes) is None:
                return 0
            params = await collect_params(
                self._objects, policy.spec.get("paramKind"), binding.spec.get("paramRef"), attributes.namespace
            )
        except (status.StatusError, ParamError) as err:
            errors.append(_PolicyError(policy, binding.name, f"failed to configure binding: {err}"))
            return 0
        values = await request_values(
            policy.expressions, attributes, request, get_namespace=self._get_namespace, authorizer=self._authorizer
        )
        changed = 0
        for param in params:
            obj = attributes.object
            assert obj is not None
            try:
                mutated = await evaluate(
                    policy.expressions,
                    lambda param=param, obj=obj: policy.mutate({**values, PARAMS: param}, obj, shape),
                )
            except MutationError as err:
                failures.append(_PolicyError(policy, binding.name, str(err), "Invalid"))
                continue
            if mutated != obj:
                obj.clear()
                obj.update(mutated)
                changed += 1
        return changed


def _refuse(attributes: Attributes, errors: list[_PolicyError]) -> None:
    """Upstream's single refusal for every failure under `failurePolicy: Fail`: code 403, the first
    failure's message and reason, each failure a cause."""
    if not errors:
        return
    error = forbidden(attributes, "admission request denied by policy")
    error.message = str(errors[0])
    error.reason = errors[0].reason or "Forbidden"
    details = dict(error.details or {})
    details["causes"] = [{"message": str(failure)} for failure in errors]
    error.details = details
    raise error
