"""HorizontalPodAutoscaler metrics and behavior, with upstream's causes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_more_kinds import HPA

AUTOSCALING = "autoscaling"
REQUIRED, INVALID, FORBIDDEN, NOT_SUPPORTED = (
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueNotSupported",
)
CPU = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}
SCALE_DOWN = {"stabilizationWindowSeconds": 300, "policies": [{"type": "Percent", "value": 50, "periodSeconds": 60}]}


def test_metrics_and_behavior_pass() -> None:
    hpa = with_path(with_path(HPA, "spec.metrics", [CPU]), "spec.behavior", {"scaleDown": SCALE_DOWN})
    assert causes(AUTOSCALING, "HorizontalPodAutoscaler", hpa) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (
            "spec.metrics",
            [{"type": "Pods", "resource": CPU["resource"]}],
            [("spec.metrics[0].pods", REQUIRED, "must populate information for the given metric source")],
        ),
        (
            "spec.metrics",
            [{**CPU, "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "10"}}}],
            [("spec.metrics[0].external", FORBIDDEN, "must populate the given metric source only")],
        ),
        (
            "spec.metrics",
            [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization"}}}],
            [("spec.metrics[0].resource.target.averageUtilization", REQUIRED, "either a target raw value")],
        ),
        (
            "spec.metrics",
            [{"type": "External", "external": {"metric": {"name": ""}, "target": {"type": "Value", "value": "0"}}}],
            [
                ("spec.metrics[0].external.metric.name", REQUIRED, "must specify a metric name"),
                ("spec.metrics[0].external.target.value", INVALID, "must be positive"),
            ],
        ),
        (
            "spec.behavior",
            {"scaleDown": {"stabilizationWindowSeconds": 4000, "selectPolicy": "Most", "policies": []}},
            [
                ("spec.behavior.scaleDown.stabilizationWindowSeconds", INVALID, "less than or equal to 3600"),
                ("spec.behavior.scaleDown.selectPolicy", NOT_SUPPORTED, '"Disabled", "Max", "Min"'),
                ("spec.behavior.scaleDown.policies", REQUIRED, "must specify at least one Policy"),
            ],
        ),
        (
            "spec.behavior",
            {"scaleUp": {"policies": [{"type": "Nodes", "value": 0, "periodSeconds": 1801}]}},
            [
                ("spec.behavior.scaleUp.policies[0].type", NOT_SUPPORTED, '"Percent", "Pods"'),
                ("spec.behavior.scaleUp.policies[0].value", INVALID, "must be greater than zero"),
                ("spec.behavior.scaleUp.policies[0].periodSeconds", INVALID, "less than or equal to 1800"),
            ],
        ),
    ],
)
def test_invalid_metrics_and_behavior(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(AUTOSCALING, "HorizontalPodAutoscaler", with_path(HPA, path, value)), expected)
