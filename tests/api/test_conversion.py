"""Field conversions between versions of one stored resource, as pure functions."""

from __future__ import annotations

import json

from svc.api.brand import KUBERNETES, SVC
from svc.api.conversion import conversion_for
from svc.api.conversion.autoscaling import HorizontalPodAutoscalers
from svc.api.conversion.events import core_to_events, events_to_core
from svc.api.conversion.gojson import go_json
from svc.api.resources import ResourceSet

HPA = HorizontalPodAutoscalers(KUBERNETES.label)
SELECTOR = {"matchLabels": {"queue": "jobs"}}
V2_METRICS = [
    {
        "type": "Object",
        "object": {
            "metric": {"name": "rps"},
            "target": {"type": "Value", "value": "10"},
            "describedObject": {"kind": "Ingress", "name": "i", "apiVersion": "networking.k8s.io/v1"},
        },
    },
    {
        "type": "External",
        "external": {
            "metric": {"name": "depth", "selector": SELECTOR},
            "target": {"type": "AverageValue", "averageValue": "5"},
        },
    },
    {
        "type": "ContainerResource",
        "containerResource": {
            "name": "memory",
            "target": {"type": "Utilization", "averageUtilization": 70},
            "container": "app",
        },
    },
]


def _v2(**spec) -> dict:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "minReplicas": 1, "maxReplicas": 3, **spec},
        "status": {"currentReplicas": 1, "desiredReplicas": 1},
    }


def test_every_metric_source_survives_a_round_trip_through_v1() -> None:
    original = _v2(metrics=V2_METRICS)
    back = HPA.to_v2(HPA.to_v1(original))
    assert back["spec"]["metrics"] == V2_METRICS
    assert "annotations" not in back["metadata"]


def test_behavior_with_tolerance_survives_a_round_trip_through_v1() -> None:
    behavior = {
        "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [], "tolerance": "50m"},
        "scaleDown": {"selectPolicy": "Min", "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]},
    }
    v1 = HPA.to_v1(_v2(behavior=behavior))
    encoded = json.loads(v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/behavior"])
    assert encoded["ScaleUp"]["Tolerance"] == "50m"
    assert encoded["ScaleDown"]["StabilizationWindowSeconds"] is None
    assert HPA.to_v2(v1)["spec"]["behavior"] == behavior


def test_stale_round_trip_annotations_are_dropped_both_ways() -> None:
    stale = {"autoscaling.alpha.kubernetes.io/metrics": "[]", "keep": "me"}
    v2 = _v2(metrics=[])
    v2["metadata"]["annotations"] = stale
    assert HPA.to_v1(v2)["metadata"]["annotations"] == {"keep": "me"}


def test_an_undecodable_annotation_is_ignored() -> None:
    v1 = {
        "apiVersion": "autoscaling/v1",
        "metadata": {"name": "h", "annotations": {"autoscaling.alpha.kubernetes.io/metrics": "nope"}},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 3},
    }
    v2 = HPA.to_v2(v1)
    assert [m["resource"]["name"] for m in v2["spec"]["metrics"]] == ["cpu"]
    assert "annotations" not in v2["metadata"]


def test_go_json_escapes_as_go_does() -> None:
    assert go_json({"b": "<&>", "a": "\u2028"}) == '{"b":"\\u003c\\u0026\\u003e","a":"\\u2028"}'


def test_events_convert_both_ways_without_loss() -> None:
    new = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "e"},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "series": {"count": 3, "lastObservedTime": "2026-01-01T00:00:01.000000Z"},
        "reportingController": "c",
        "reportingInstance": "i",
        "action": "A",
        "reason": "R",
        "regarding": {"kind": "Pod", "name": "p"},
        "related": {"kind": "Node", "name": "n"},
        "note": "N",
        "type": "Normal",
        "deprecatedSource": {"component": "x"},
        "deprecatedFirstTimestamp": "2026-01-01T00:00:00Z",
        "deprecatedLastTimestamp": "2026-01-01T00:00:01Z",
        "deprecatedCount": 3,
    }
    assert core_to_events(events_to_core(new)) == new


def test_single_shape_kinds_have_no_conversion() -> None:
    resources = ResourceSet(SVC)
    assert conversion_for(resources.get("", "v1", "configmaps"), SVC) is None
    assert conversion_for(resources.get("apps", "v1", "deployments"), SVC) is None
    hpa_v1 = conversion_for(resources.get("autoscaling", "v1", "horizontalpodautoscalers"), SVC)
    assert hpa_v1 is not None and hpa_v1.storage_api_version == "autoscaling/v2"
    events = conversion_for(resources.get(SVC.group("events.k8s.io"), "v1", "events"), SVC)
    assert events is not None and events.storage_api_version == "v1"
