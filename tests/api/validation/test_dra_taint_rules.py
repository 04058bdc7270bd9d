"""DeviceTaintRule: selector names as slices name drivers, pools and devices; the taint as a slice's,
its effect checked again only when an update changes it."""

from __future__ import annotations

from typing import Any

from svc.api.kinds.device_taint_rules import status_errors
from tests.api.validation.support import assert_causes, causes, with_path

GROUP = "resource.k8s.io"
RULE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1beta2",
    "kind": "DeviceTaintRule",
    "metadata": {"name": "maintenance"},
    "spec": {
        "deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
        "taint": {"key": "example.com/maintenance", "value": "planned", "effect": "NoExecute"},
    },
}


def test_valid_rule_passes() -> None:
    assert causes(GROUP, "DeviceTaintRule", RULE) == []


def test_selector_names_and_taint_are_checked() -> None:
    rule = with_path(RULE, "spec.deviceSelector", {"driver": "gpu_example.com", "device": "gpu_0"})
    rule = with_path(rule, "spec.taint", {"key": "", "effect": "Sometimes"})
    assert [cause[:2] for cause in causes(GROUP, "DeviceTaintRule", rule)] == [
        ("spec.deviceSelector.driver", "FieldValueInvalid"),
        ("spec.deviceSelector.device", "FieldValueInvalid"),
        ("spec.taint.key", "FieldValueInvalid"),
        ("spec.taint.key", "FieldValueInvalid"),
        ("spec.taint.effect", "FieldValueNotSupported"),
    ]


def test_update_keeps_an_unchanged_effect_but_not_a_changed_one() -> None:
    stored = with_path(RULE, "spec.taint.effect", "Retired")
    relabeled = with_path(stored, "metadata.labels", {"team": "ops"})
    assert causes(GROUP, "DeviceTaintRule", relabeled, old=stored) == []
    changed = with_path(stored, "spec.taint.effect", "AlsoRetired")
    assert_causes(
        causes(GROUP, "DeviceTaintRule", changed, old=stored),
        [("spec.taint.effect", "FieldValueNotSupported", 'supported values: "NoExecute", "NoSchedule", "None"')],
    )


CONDITION = {
    "type": "EvictionInProgress",
    "status": "True",
    "reason": "Evicting",
    "lastTransitionTime": "2026-11-25T20:00:00Z",
}


def test_status_conditions_are_metav1_conditions() -> None:
    assert status_errors(with_path(RULE, "status", {"conditions": [CONDITION]})) == []
    bad = {"type": "EvictionInProgress", "status": "Maybe", "reason": "not-a-reason", "observedGeneration": -1}
    rule = with_path(RULE, "status", {"conditions": [CONDITION, bad]})
    assert [(error.field, error.reason) for error in status_errors(rule)] == [
        ("status.conditions[1].type", "FieldValueDuplicate"),
        ("status.conditions[1].status", "FieldValueNotSupported"),
        ("status.conditions[1].observedGeneration", "FieldValueInvalid"),
        ("status.conditions[1].lastTransitionTime", "FieldValueRequired"),
        ("status.conditions[1].reason", "FieldValueInvalid"),
    ]


def test_status_holds_at_most_8_conditions() -> None:
    conditions = [{**CONDITION, "type": f"Condition{n}"} for n in range(9)]
    errors = status_errors(with_path(RULE, "status", {"conditions": conditions}))
    assert [(error.field, error.body()) for error in errors] == [
        ("status.conditions", "Too many: 9: must have at most 8 items")
    ]


def test_status_writes_are_checked_over_http(svc_server_factory) -> None:
    api = svc_server_factory(
        "--brand-profile=kubernetes",
        "--runtime-config=resource.k8s.io/v1beta2=true",
        "--feature-gates=DRADeviceTaintRules=true",
    ).client()
    rules = "/apis/resource.k8s.io/v1beta2/devicetaintrules"
    created = api.request("POST", rules, body=RULE)
    assert created.status == 201, created.json()
    rule = created.json()
    rule["status"] = {"conditions": [{**CONDITION, "status": "Maybe"}]}
    refused = api.request("PUT", f"{rules}/maintenance/status", body=rule)
    assert refused.status == 422, refused.json()
    assert [cause["field"] for cause in refused.json()["details"]["causes"]] == ["status.conditions[0].status"]
    rule["status"] = {"conditions": [CONDITION]}
    assert api.request("PUT", f"{rules}/maintenance/status", body=rule).status == 200
