"""The ValidatingAdmissionPolicy plugin: every policy whose matchConstraints select the request,
with each of its bindings whose matchResources do, evaluated once per parameter object.

A binding's `validationActions` say what a failed validation does: `Deny` rejects the request
with upstream's `ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request: <message>`
(422 Invalid unless the validation names another reason), `Warn` adds a `Warning` header, `Audit`
adds the `validation.policy.admission.k8s.io/validation_failure` audit annotation. Configuration
problems (a missing parameter kind, a bad selector, a Deny `parameterNotFoundAction`) deny under
`failurePolicy: Fail`. The first denial decides the response, as upstream.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from svc.apiserver.admission.matching import (
    NamespaceGetter,
    RequestMatcher,
    is_exempt_configuration,
    is_namespace_request,
)
from svc.apiserver.admission.plugins.policy.authorizer import authorizer_values
from svc.apiserver.admission.plugins.policy.expressions import (
    NAMESPACE_OBJECT,
    OBJECT,
    OLD_OBJECT,
    PARAMS,
    REQUEST,
)
from svc.apiserver.admission.plugins.policy.objects import Objects
from svc.apiserver.admission.plugins.policy.params import ParamError, collect_params
from svc.apiserver.admission.plugins.policy.request import admission_request
from svc.apiserver.admission.plugins.policy.source import Binding, PolicySource
from svc.apiserver.admission.plugins.policy.validating_policy import INVALID, Decision, ValidatingPolicy
from svc.apiserver.authz.authorizer import Authorizer
from svc.machinery import status
from svc.registry.admission import Attributes

VALIDATION_FAILURE: Final = "validation.policy.admission.k8s.io/validation_failure"
MAX_AUDIT_ANNOTATION_VALUE: Final = 10 * 1024
_REASON_CODES: Final = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, INVALID: 422}


@dataclass(frozen=True)
class _Denial:
    policy: str
    binding: str
    decision: Decision


class ValidatingAdmissionPolicy:
    def __init__(
        self,
        source: PolicySource[ValidatingPolicy],
        *,
        matcher: RequestMatcher,
        objects: Objects,
        authorizer: Authorizer,
        get_namespace: NamespaceGetter,
    ) -> None:
        self._get_namespace = get_namespace
        self._source = source
        self._matcher = matcher
        self._objects = objects
        self._authorizer = authorizer

    async def validate(self, attributes: Attributes) -> None:
        if is_exempt_configuration(attributes):
            return
        bound = await self._source.current()
        if not bound:
            return
        denials: list[_Denial] = []
        request: dict[str, Any] | None = None
        for entry in bound:
            policy = entry.policy
            try:
                if not await self._matcher.matches(policy.criteria, attributes):
                    continue
            except status.StatusError as err:
                self._configuration_error(denials, policy, "", f"failed to configure policy: {err}")
                continue
            annotations: dict[str, list[str]] = {}
            for binding in entry.bindings:
                spec, binding_name = binding.spec, binding.name
                try:
                    if not await self._binding_matches(binding, attributes):
                        continue
                    params = await collect_params(
                        self._objects, policy.spec.get("paramKind"), spec.get("paramRef"), attributes.namespace
                    )
                except (status.StatusError, ParamError) as err:
                    self._configuration_error(denials, policy, binding_name, f"failed to configure binding: {err}")
                    continue
                if not params:
                    continue
                if request is None:
                    request = admission_request(attributes)
                values = {
                    OBJECT: attributes.object,
                    OLD_OBJECT: attributes.old_object,
                    REQUEST: request,
                    NAMESPACE_OBJECT: None,
                }
                if policy.expressions.uses_namespace:
                    values[NAMESPACE_OBJECT] = await self._namespace_object(attributes)
                if policy.expressions.uses_authorizer:
                    values.update(authorizer_values(self._authorizer, attributes))
                for param in params:
                    outcome = await self._evaluate(policy, {**values, PARAMS: param})
                    for decision in outcome.decisions:
                        if decision.deny:
                            _act(attributes, denials, policy, binding_name, spec, decision)
                    for key, value in outcome.annotations:
                        values_of = annotations.setdefault(key, [])
                        if value[:MAX_AUDIT_ANNOTATION_VALUE] not in values_of:
                            values_of.append(value[:MAX_AUDIT_ANNOTATION_VALUE])
            for key, values_of in annotations.items():
                attributes.annotations.setdefault(f"{policy.name}/{key}", ", ".join(values_of))
        if denials:
            raise _rejection(attributes, denials[0])

    async def _evaluate(self, policy: ValidatingPolicy, values: Mapping[str, Any]) -> Any:
        act = policy.expressions.activation(values)
        if policy.expressions.uses_authorizer:
            return await asyncio.to_thread(policy.evaluate, act)
        return policy.evaluate(act)

    async def _binding_matches(self, binding: Binding, attributes: Attributes) -> bool:
        return binding.criteria is None or await self._matcher.matches(binding.criteria, attributes) is not None

    async def _namespace_object(self, attributes: Attributes) -> dict[str, Any] | None:
        if not attributes.namespace or is_namespace_request(attributes):
            return None
        return await self._get_namespace(attributes.namespace)

    @staticmethod
    def _configuration_error(denials: list[_Denial], policy: ValidatingPolicy, binding: str, message: str) -> None:
        if policy.fail:
            denials.append(_Denial(policy.name, binding, Decision(True, message, INVALID)))


def _act(
    attributes: Attributes,
    denials: list[_Denial],
    policy: ValidatingPolicy,
    binding: str,
    spec: Mapping[str, Any],
    decision: Decision,
) -> None:
    """What a failed validation does, per the binding's validation actions."""
    actions = spec.get("validationActions") or []
    for action in actions:
        if action == "Deny":
            denials.append(_Denial(policy.name, binding, decision))
        elif action == "Warn":
            attributes.warn(
                f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' with binding '{binding}': "
                f"{decision.message}"
            )
        elif action == "Audit":
            failure = {
                "message": decision.message,
                "policy": policy.name,
                "binding": binding,
                "expressionIndex": decision.index,
                "validationActions": actions,
            }
            attributes.annotations.setdefault(VALIDATION_FAILURE, json.dumps([failure], separators=(",", ":")))


def _rejection(attributes: Attributes, denial: _Denial) -> status.StatusError:
    """Upstream builds a Forbidden error and then swaps in the validation's reason and its code."""
    if denial.binding:
        message = (
            f"ValidatingAdmissionPolicy '{denial.policy}' with binding '{denial.binding}' denied request: "
            f"{denial.decision.message}"
        )
    else:
        message = f"ValidatingAdmissionPolicy '{denial.policy}' denied request: {denial.decision.message}"
    error = status.forbidden(attributes.resource.group_resource, attributes.name, message)
    reason = denial.decision.reason or INVALID
    error.reason = reason
    error.code = _REASON_CODES.get(reason, 422)
    details = error.details if error.details is not None else {}
    details.setdefault("causes", []).append({"message": message})
    error.details = details
    return error
