"""The MutatingAdmissionPolicy plugin: every policy whose matchConstraints select the request, with
each of its bindings whose matchResources do, mutates the object once per parameter object.

The object is changed in place (the registry keeps its own reference to it). Reinvocation follows
the chain's context as upstream's: a change asks the chain for a second mutating pass, in which a
policy with `reinvocationPolicy: IfNeeded` that ran before a later change (by another policy, a
webhook or an in-tree plugin) runs once more; nothing runs for the first time in that pass. A
mutation that fails rejects the request under `failurePolicy: Fail` and is skipped under `Ignore`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from svc.api.schemas import schema_for
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
        try:
            for entry in bound:
                policy = entry.policy
                if not await self._policy_matches(policy, attributes):
                    continue
                for binding in entry.bindings:
                    key = (policy.name, binding.name)
                    if context.is_reinvoke and key not in state.reinvoke:
                        continue
                    if await self._run(policy, binding, attributes, request, shape):
                        state.require_reinvoking_invoked()
                        context.should_reinvoke = True
                    if policy.reinvoke:
                        state.invoked.add(key)
        finally:
            state.last_output = copy.deepcopy(attributes.object)

    async def _policy_matches(self, policy: MutatingPolicy, attributes: Attributes) -> bool:
        try:
            return await self._matcher.matches(policy.criteria, attributes) is not None
        except status.StatusError as err:
            _fail(policy, "", f"failed to configure policy: {err}", attributes)
            return False

    async def _run(
        self, policy: MutatingPolicy, binding: Binding, attributes: Attributes, request: dict[str, Any], shape: Any
    ) -> int:
        """Applies one binding; returns how many times it changed the object."""
        try:
            if binding.criteria is not None and await self._matcher.matches(binding.criteria, attributes) is None:
                return 0
            params = await collect_params(
                self._objects, policy.spec.get("paramKind"), binding.spec.get("paramRef"), attributes.namespace
            )
        except (status.StatusError, ParamError) as err:
            _fail(policy, binding.name, f"failed to configure binding: {err}", attributes)
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
                _fail(policy, binding.name, str(err), attributes)
                continue
            if mutated != obj:
                obj.clear()
                obj.update(mutated)
                changed += 1
        return changed


def _fail(policy: MutatingPolicy, binding: str, message: str, attributes: Attributes) -> None:
    if not policy.fail:
        return
    subject = f"MutatingAdmissionPolicy '{policy.name}'" + (f" with binding '{binding}'" if binding else "")
    raise status.forbidden(attributes.resource.group_resource, attributes.name, f"{subject} denied request: {message}")
