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

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from svc.apiserver.admission.matching import NamespaceGetter, RequestMatcher, is_exempt_configuration
from svc.apiserver.admission.metrics import PolicyMetrics
from svc.apiserver.admission.plugins.policy.activation import evaluate, request_values
from svc.apiserver.admission.plugins.policy.expressions import PARAMS
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
        metrics: PolicyMetrics | None = None,
    ) -> None:
        self._metrics = metrics
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
        request = admission_request(attributes)
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
                await self._check_binding(policy, binding, attributes, request, denials, annotations)
            for key, values_of in annotations.items():
                attributes.annotations.setdefault(f"{policy.name}/{key}", ", ".join(values_of))
        if denials:
            raise _rejection(attributes, denials[0])

    async def _check_binding(
        self,
        policy: ValidatingPolicy,
        binding: Binding,
        attributes: Attributes,
        request: dict[str, Any],
        denials: list[_Denial],
        annotations: dict[str, list[str]],
    ) -> None:
        """Evaluates the policy for one binding (once per parameter), collecting denials and audit
        annotation values; warnings and audit failures go on the attributes."""
        try:
            if binding.criteria is not None and await self._matcher.matches(binding.criteria, attributes) is None:
                return
            params = await collect_params(
                self._objects, policy.spec.get("paramKind"), binding.spec.get("paramRef"), attributes.namespace
            )
        except (status.StatusError, ParamError) as err:
            self._configuration_error(denials, policy, binding.name, f"failed to configure binding: {err}")
            return
        if not params:
            return
        values = await request_values(
            policy.expressions, attributes, request, get_namespace=self._get_namespace, authorizer=self._authorizer
        )
        for param in params:
            act = policy.expressions.activation({**values, PARAMS: param})
            started = time.perf_counter()
            outcome = await evaluate(policy.expressions, lambda act=act: policy.evaluate(act))
            seconds = time.perf_counter() - started
            failed = [decision for decision in outcome.decisions if decision.deny]
            for decision in failed:
                _act(attributes, denials, policy, binding.name, binding.spec, decision)
            self._record(policy.name, binding, seconds, bool(failed))
            for key, value in outcome.annotations:
                values_of = annotations.setdefault(key, [])
                if value[:MAX_AUDIT_ANNOTATION_VALUE] not in values_of:
                    values_of.append(value[:MAX_AUDIT_ANNOTATION_VALUE])

    def _record(self, policy: str, binding: Binding, seconds: float, failed: bool) -> None:
        """Upstream's check metrics: one `allow`, or one per validation action of a failed check."""
        if self._metrics is None:
            return
        actions = [action.lower() for action in binding.spec.get("validationActions") or []] if failed else ["allow"]
        for action in actions:
            self._metrics.check(policy, binding.name, action, seconds)

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
