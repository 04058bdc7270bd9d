"""A validating policy's evaluation without a server: the cost budget, message fallbacks, and
type checking against the matched kinds with typed params and variables."""

from __future__ import annotations

from svc.api.brand import PROFILES
from svc.api.resources import ResourceSet
from svc.api.validation.policy_type_checking import expression_warnings
from svc.apiserver.admission.plugins.policy.expressions import OUT_OF_BUDGET
from svc.apiserver.admission.plugins.policy.validating_policy import ValidatingPolicy

DEPLOYMENTS = {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}]}
OBJECT = {"metadata": {"name": "web"}, "spec": {"replicas": 3}}


def _policy(validations: list[dict], **spec: object) -> ValidatingPolicy:
    return ValidatingPolicy({"metadata": {"name": "p"}, "spec": {"validations": validations, **spec}})


def _decisions(policy: ValidatingPolicy, cost_limit: int | None = None) -> list:
    act = policy.expressions.composition.activation({"object": OBJECT}, cost_limit=cost_limit)
    return policy.evaluate(act).decisions


def test_running_out_of_budget_denies_and_stops_further_validations() -> None:
    loop = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(a, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(b, a * b > 0))"
    decisions = _decisions(_policy([{"expression": loop}, {"expression": "false"}]), cost_limit=50)
    assert [(d.deny, d.message) for d in decisions] == [(True, OUT_OF_BUDGET)]


def test_a_message_expression_that_fails_falls_back_to_the_message() -> None:
    validation = {"expression": "false", "message": "static", "messageExpression": "object.spec.missing"}
    assert _decisions(_policy([validation]))[0].message == "static"


def test_an_empty_message_expression_falls_back_to_the_failed_expression() -> None:
    validation = {"expression": "  object.spec.replicas > 5 ", "messageExpression": "''"}
    assert _decisions(_policy([validation]))[0].message == "failed expression: object.spec.replicas > 5"


def test_type_checking_types_params_and_variables() -> None:
    spec = {
        "matchConstraints": DEPLOYMENTS,
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "variables": [{"name": "replicas", "expression": "object.spec.replicas"}],
        "validations": [
            {"expression": "variables.replicas <= int(params.data.max)"},
            {"expression": "params.spec.max > 0"},
            {"expression": "variables.replicas.foo > 0"},
        ],
    }
    warnings = expression_warnings(spec, ResourceSet(PROFILES["kubernetes"]))
    assert [w["fieldRef"] for w in warnings] == ["spec.validations[1].expression", "spec.validations[2].expression"]
    assert warnings[0]["warning"].startswith("apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'spec'")
