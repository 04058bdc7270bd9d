"""DeviceTaintRule: selector names as slices name drivers, pools and devices; the taint as a slice's,
its effect checked again only when an update changes it."""

from __future__ import annotations

from typing import Any

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
