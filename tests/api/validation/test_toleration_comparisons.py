"""Tolerations with the comparison operators `Lt` and `Gt` (gate TaintTolerationComparisonOperators,
alpha and off in 1.36), as upstream's `ValidateTolerations` takes them: refused while the gate is off and
the stored pod uses none, naming all four operators; allowed, their value must be a canonical decimal
64-bit integer. A RuntimeClass's tolerations never may use them."""

from __future__ import annotations

from typing import Any

import pytest

from svc.api.validation.gates import UPSTREAM_DEFAULTS, PodOptions, pod_options_for, using
from tests.api.validation.support import causes, with_path
from tests.api.validation.test_pods import POD

INVALID, NOT_SUPPORTED = "FieldValueInvalid", "FieldValueNotSupported"
PATH = "spec.tolerations[0]"


def _pod(operator: str, value: str = "5") -> dict[str, Any]:
    return with_path(POD, "spec.tolerations", [{"key": "example.com/gpus", "operator": operator, "value": value}])


def test_off_a_comparison_is_refused_naming_all_four_operators() -> None:
    with using(PodOptions(allow_taint_toleration_comparison_operators=False)):
        found = causes("", "Pod", _pod("Gt"))
    detail = 'Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt"'
    assert found == [(f"{PATH}.operator", NOT_SUPPORTED, detail)]


def test_another_unknown_operator_names_equal_and_exists_only() -> None:
    found = causes("", "Pod", _pod("Near"))
    assert found == [
        (f"{PATH}.operator", NOT_SUPPORTED, 'Unsupported value: "Near": supported values: "Equal", "Exists"')
    ]


@pytest.mark.parametrize(
    ("value", "details"),
    [
        ("5", []),
        ("-12", []),
        ("0", []),
        ("007", ["must be a valid decimal integer in canonical form"]),
        ("+5", ["must be a valid decimal integer in canonical form"]),
        (
            "five",
            ["must be a valid decimal integer in canonical form", 'strconv.ParseInt: parsing "five": invalid syntax'],
        ),
        ("", ["must be non-empty", 'strconv.ParseInt: parsing "": invalid syntax']),
        ("9223372036854775808", ['strconv.ParseInt: parsing "9223372036854775808": value out of range']),
    ],
)
def test_on_a_comparison_value_is_a_canonical_int64(value: str, details: list[str]) -> None:
    found = causes("", "Pod", _pod("Lt", value))
    assert found == [(f"{PATH}.value", INVALID, f'Invalid value: "{value}": {detail}') for detail in details]


def test_a_stored_pod_using_a_comparison_keeps_it_allowed() -> None:
    assert not pod_options_for(UPSTREAM_DEFAULTS, POD["spec"]).allow_taint_toleration_comparison_operators
    assert pod_options_for(UPSTREAM_DEFAULTS, _pod("Lt")["spec"]).allow_taint_toleration_comparison_operators


def test_the_server_refuses_a_comparison_by_default(svc_server_factory) -> None:
    api = svc_server_factory("--brand-profile=kubernetes").client()
    pod = {**_pod("Lt"), "metadata": {"name": "p"}}
    response = api.request("POST", "/api/v1/namespaces/default/pods", body=pod)
    assert response.status == 422, response.body
    [cause] = response.json()["details"]["causes"]
    assert cause["field"] == f"{PATH}.operator" and '"Lt", "Gt"' in cause["message"]


def test_a_runtime_class_never_takes_a_comparison() -> None:
    runtime_class = {
        "apiVersion": "node.k8s.io/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": "gvisor"},
        "handler": "runsc",
        "scheduling": {"tolerations": [{"key": "k", "operator": "Gt", "value": "1"}]},
    }
    [cause] = causes("node.k8s.io", "RuntimeClass", runtime_class)
    assert cause[:2] == ("scheduling.tolerations[0].operator", NOT_SUPPORTED)
