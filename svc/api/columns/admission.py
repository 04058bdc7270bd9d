"""Columns of the admissionregistration.k8s.io kinds: webhook configurations (how many webhooks),
admission policies (how many rules, which parameter kind) and their bindings (which policy, which
parameters)."""

from __future__ import annotations

from svc.api.columns.common import UNSET, age_column, count, field, name_column, text
from svc.api.columns.selectors import selector_struct_string
from svc.wire.views import Column, Obj

_PARAM_KIND_DESCRIPTION = "ParamKind specifies the kind of resources used to parameterize this policy"


def _webhook_configuration() -> tuple[Column, ...]:
    return (
        name_column(),
        Column(
            "Webhooks",
            "integer",
            count("webhooks"),
            description="Webhooks indicates the number of webhooks registered in this configuration",
        ),
        age_column(),
    )


def _param_kind(policy: Obj) -> str:
    kind = field(policy, "spec", "paramKind")
    return f"{text(kind, 'apiVersion')}/{text(kind, 'kind')}" if isinstance(kind, dict) else UNSET


def _policy(header: str, rules: str, rules_description: str) -> tuple[Column, ...]:
    return (
        name_column(),
        Column(
            header,
            "integer",
            count("spec", rules),
            description=rules_description,
        ),
        Column("ParamKind", "string", _param_kind, description=_PARAM_KIND_DESCRIPTION),
        age_column(),
    )


def _param_ref(binding: Obj) -> str:
    """`namespace/name`, `*/name` without a namespace, else the selector as Go's generated `String()` of
    the struct writes it; `<unset>` without a reference."""
    reference = field(binding, "spec", "paramRef")
    if not isinstance(reference, dict):
        return UNSET
    if text(reference, "name"):
        return f"{text(reference, 'namespace') or '*'}/{text(reference, 'name')}"
    if isinstance(reference.get("selector"), dict):
        return selector_struct_string(reference["selector"])
    return UNSET


def _policy_name(binding: Obj) -> str:
    return text(binding, "spec", "policyName")


def _binding() -> tuple[Column, ...]:
    return (
        name_column(),
        Column(
            "PolicyName",
            "string",
            _policy_name,
            description="PolicyName indicates the policy definition which the policy binding binded to",
        ),
        Column(
            "ParamRef",
            "string",
            _param_ref,
            description="ParamRef indicates the param resource which sets the configration param",
        ),
        age_column(),
    )


VALIDATING_WEBHOOK_CONFIGURATION = _webhook_configuration()
MUTATING_WEBHOOK_CONFIGURATION = _webhook_configuration()
VALIDATING_ADMISSION_POLICY = _policy(
    "Validations", "validations", "Validations indicates the number of validation rules defined in this configuration"
)
MUTATING_ADMISSION_POLICY = _policy(
    "Mutations", "mutations", "Mutation indicates the number of mutations rules defined in this configuration"
)
VALIDATING_ADMISSION_POLICY_BINDING = _binding()
MUTATING_ADMISSION_POLICY_BINDING = _binding()
