"""A container's own `restartPolicy` and `restartPolicyRules` as upstream 1.36 validates them
(ContainerRestartRules and RestartAllContainersOnContainerExits, both beta and on): regular and regular
init containers may name a policy and exit-code rules; rules need a policy. With ContainerRestartRules off
the fields are dropped from new specs (upstream's `dropContainerRestartRules`) unless the stored spec uses
them, and a spec that keeps them is held to the old rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from svc.api.validation.gates import PodOptions, using
from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import POD

C0, I0 = "spec.containers[0]", "spec.initContainers[0]"
REQUIRED, NOT_SUPPORTED, FORBIDDEN, TOO_LONG = (
    "FieldValueRequired",
    "FieldValueNotSupported",
    "FieldValueForbidden",
    "FieldValueTooLong",
)
PODS = "/api/v1/namespaces/default/pods"


def _rule(action: Any = "Restart", operator: Any = "In", values: list[int] | None = None) -> dict[str, Any]:
    return {"action": action, "exitCodes": {"operator": operator, "values": [42] if values is None else values}}


def _with_restart(where: str, policy: Any = None, rules: list[Any] | None = None) -> dict[str, Any]:
    pod = copy.deepcopy(POD)
    container = pod["spec"]["initContainers" if where == "init" else "containers"][0]
    if policy is not None:
        container["restartPolicy"] = policy
    if rules is not None:
        container["restartPolicyRules"] = rules
    return pod


VALID = [
    ("regular container Never", _with_restart("regular", "Never")),
    ("regular container Always", _with_restart("regular", "Always")),
    ("regular container OnFailure with a rule", _with_restart("regular", "OnFailure", [_rule()])),
    ("NotIn rule with no values", _with_restart("regular", "Never", [_rule(operator="NotIn", values=[])])),
    ("RestartAllContainers action", _with_restart("regular", "Never", [_rule("RestartAllContainers")])),
    ("regular init container Never with a rule", _with_restart("init", "Never", [_rule()])),
    ("sidecar with a RestartAllContainers rule", _with_restart("init", "Always", [_rule("RestartAllContainers")])),
    ("255 exit codes", _with_restart("regular", "Never", [_rule(values=list(range(255)))])),
    ("20 rules", _with_restart("regular", "Never", [_rule()] * 20)),
]

INVALID = [
    (
        "rules without a policy",
        _with_restart("regular", rules=[_rule()]),
        [(f"{C0}.restartPolicy", REQUIRED, "must specify restartPolicy when restart rules are used")],
    ),
    (
        "rules without a policy are still checked",
        _with_restart("regular", rules=[_rule("Stop")]),
        [
            (f"{C0}.restartPolicy", REQUIRED, "must specify restartPolicy when restart rules are used"),
            (f"{C0}.restartPolicyRules[0].action", NOT_SUPPORTED, 'Unsupported value: "Stop"'),
        ],
    ),
    (
        "init container rules without a policy",
        _with_restart("init", rules=[_rule()]),
        [(f"{I0}.restartPolicy", REQUIRED, "must specify restartPolicy when restart rules are used")],
    ),
    (
        "unknown container policy",
        _with_restart("regular", "Sometimes"),
        [
            (
                f"{C0}.restartPolicy",
                NOT_SUPPORTED,
                'Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
            )
        ],
    ),
    (
        "unknown action",
        _with_restart("regular", "Never", [_rule("DoNotRestart")]),
        [
            (
                f"{C0}.restartPolicyRules[0].action",
                NOT_SUPPORTED,
                'Unsupported value: "DoNotRestart": supported values: "Restart"',
            )
        ],
    ),
    (
        "unknown operator",
        _with_restart("regular", "Never", [_rule(operator="Equals")]),
        [
            (
                f"{C0}.restartPolicyRules[0].exitCodes.operator",
                NOT_SUPPORTED,
                'Unsupported value: "Equals": supported values: "In", "NotIn"',
            )
        ],
    ),
    (
        "missing operator",
        _with_restart("regular", "Never", [{"action": "Restart", "exitCodes": {"values": [1]}}]),
        [(f"{C0}.restartPolicyRules[0].exitCodes.operator", NOT_SUPPORTED, 'Unsupported value: "": supported')],
    ),
    (
        "a rule without exit codes",
        _with_restart("regular", "Never", [{"action": "Restart"}]),
        [(f"{C0}.restartPolicyRules[0].exitCodes", REQUIRED, "Required value: must be specified")],
    ),
    (
        "too many rules",
        _with_restart("regular", "Never", [_rule()] * 21),
        [(f"{C0}.restartPolicyRules", TOO_LONG, "Too long: may not be more than 20 bytes")],
    ),
    (
        "too many exit codes",
        _with_restart("regular", "Never", [_rule(values=list(range(256)))]),
        [(f"{C0}.restartPolicyRules[0].exitCodes.values", TOO_LONG, "Too long: may not be more than 255 bytes")],
    ),
]


@pytest.mark.parametrize(("name", "pod"), VALID, ids=[case[0] for case in VALID])
def test_valid_restart_settings_pass(name: str, pod: dict[str, Any]) -> None:
    assert causes("", "Pod", pod) == []


@pytest.mark.parametrize(("name", "pod", "expected"), INVALID, ids=[case[0] for case in INVALID])
def test_invalid_restart_settings_give_upstream_causes(name: str, pod: dict[str, Any], expected: list) -> None:
    assert_causes(causes("", "Pod", pod), expected)


def test_without_the_gate_a_regular_container_policy_is_forbidden() -> None:
    """What a spec kept through the drop (the stored spec used none) meets with the gate off."""
    with using(PodOptions(allow_container_restart_rules=False)):
        found = causes("", "Pod", _with_restart("regular", "Never"))
    assert_causes(found, [(f"{C0}.restartPolicy", FORBIDDEN, "may not be set for non-init containers")])


def test_without_the_gate_an_init_container_may_only_be_a_sidecar() -> None:
    with using(PodOptions(allow_container_restart_rules=False)):
        found = causes("", "Pod", _with_restart("init", "OnFailure"))
    assert_causes(found, [(f"{I0}.restartPolicy", NOT_SUPPORTED, 'supported values: "Always"')])


def test_without_the_gate_init_container_rules_still_need_a_policy() -> None:
    with using(PodOptions(allow_container_restart_rules=False)):
        found = causes("", "Pod", _with_restart("init", rules=[_rule()]))
    assert_causes(found, [(f"{I0}.restartPolicy", REQUIRED, "must specify restartPolicy when restart rules are used")])


def test_without_the_gate_a_sidecar_is_not_checked_for_rules() -> None:
    """Upstream's old rules look at an init container's policy only."""
    with using(PodOptions(allow_container_restart_rules=False, allow_restart_all_containers=False)):
        assert causes("", "Pod", _with_restart("init", "Always", [_rule("Stop")])) == []


def test_without_restart_all_containers_a_sidecar_may_not_have_rules() -> None:
    with using(PodOptions(allow_restart_all_containers=False)):
        found = causes("", "Pod", _with_restart("init", "Always", [_rule()]))
    detail = "restartPolicyRules are not allowed for init containers with restart policy Always"
    assert_causes(found, [(f"{I0}.restartPolicyRules", FORBIDDEN, detail)])


def test_without_restart_all_containers_only_restart_is_an_action() -> None:
    with using(PodOptions(allow_restart_all_containers=False)):
        found = causes("", "Pod", _with_restart("regular", "Never", [_rule("RestartAllContainers")]))
    assert_causes(found, [(f"{C0}.restartPolicyRules[0].action", NOT_SUPPORTED, 'supported values: "Restart"')])


def test_a_pod_template_is_held_to_the_same_rules() -> None:
    from tests.api.validation.test_workloads import DEPLOYMENT

    deployment = with_path(DEPLOYMENT, "spec.template.spec.containers.0.restartPolicyRules", [_rule()])
    assert_causes(
        causes("apps", "Deployment", deployment),
        [("spec.template.spec.containers[0].restartPolicy", REQUIRED, "must specify restartPolicy")],
    )


def _container(pod: dict[str, Any]) -> dict[str, Any]:
    return pod["spec"]["containers"][0]


def test_the_server_stores_a_container_policy_and_rules(svc_server_factory) -> None:
    api = svc_server_factory("--brand-profile=kubernetes").client()
    pod = _with_restart("regular", "Never", [_rule()])
    pod["metadata"] = {"name": "p"}
    created = api.request("POST", PODS, body=pod)
    assert created.status == 201, created.body
    assert _container(created.json())["restartPolicyRules"] == [_rule()]
    assert _container(created.json())["restartPolicy"] == "Never"


def test_the_server_refuses_rules_without_a_policy(svc_server_factory) -> None:
    api = svc_server_factory("--brand-profile=kubernetes").client()
    pod = _with_restart("regular", rules=[_rule()])
    pod["metadata"] = {"name": "p"}
    response = api.request("POST", PODS, body=pod)
    assert response.status == 422, response.body
    assert response.json()["details"]["causes"] == [
        {
            "reason": REQUIRED,
            "message": "Required value: must specify restartPolicy when restart rules are used",
            "field": f"{C0}.restartPolicy",
        }
    ]


def test_with_the_gate_off_the_fields_are_dropped_but_a_sidecar_stays(svc_server_factory) -> None:
    api = svc_server_factory("--brand-profile=kubernetes", "--feature-gates=ContainerRestartRules=false").client()
    pod = _with_restart("regular", "Never", [_rule()])
    pod["spec"]["initContainers"] = [
        {"name": "sidecar", "image": "busybox", "restartPolicy": "Always"},
        {"name": "setup", "image": "busybox", "restartPolicy": "OnFailure", "restartPolicyRules": [_rule()]},
    ]
    pod["metadata"] = {"name": "p"}
    created = api.request("POST", PODS, body=pod)
    assert created.status == 201, created.body
    stored = created.json()["spec"]
    assert "restartPolicy" not in stored["containers"][0] and "restartPolicyRules" not in stored["containers"][0]
    assert stored["initContainers"][0]["restartPolicy"] == "Always"
    assert (
        "restartPolicy" not in stored["initContainers"][1] and "restartPolicyRules" not in stored["initContainers"][1]
    )


def test_an_unknown_action_is_listed_against_restart_alone_even_where_restart_all_is_accepted() -> None:
    """Upstream builds the detail from the basic actions whatever the options allow."""
    [cause] = causes("", "Pod", _with_restart("regular", "Never", [_rule("Stop")]))
    assert cause == (
        f"{C0}.restartPolicyRules[0].action",
        NOT_SUPPORTED,
        'Unsupported value: "Stop": supported values: "Restart"',
    )
