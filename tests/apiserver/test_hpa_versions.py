"""autoscaling/v1 and v2 HorizontalPodAutoscalers convert their fields (issue 12 part 6)."""

from __future__ import annotations

import json

import pytest

from tests.apiserver.watch_client import WatchReader

V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
METRICS = "autoscaling.alpha.kubernetes.io/metrics"
BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior"
CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"
CURRENT = "autoscaling.alpha.kubernetes.io/current-metrics"
TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
CPU_50 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
MEMORY = {
    "type": "Resource",
    "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}},
}
PODS = {
    "type": "Pods",
    "pods": {"metric": {"name": "rps"}, "target": {"type": "AverageValue", "averageValue": "10"}},
}


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def _v2(name: str = "h", metrics: list | None = None, **spec) -> dict:
    body = {"scaleTargetRef": TARGET, "minReplicas": 2, "maxReplicas": 5, **spec}
    if metrics is not None:
        body["metrics"] = metrics
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name}, "spec": body}


def _v1(name: str = "h", **spec) -> dict:
    body = {"scaleTargetRef": TARGET, "maxReplicas": 5, **spec}
    return {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name}, "spec": body}


def test_a_v2_cpu_utilization_target_is_the_v1_percentage(api) -> None:
    assert api.request("POST", V2, body=_v2(metrics=[CPU_50])).status == 201
    v1 = api.request("GET", f"{V1}/h").json()
    assert v1["spec"] == {
        "scaleTargetRef": TARGET,
        "minReplicas": 2,
        "maxReplicas": 5,
        "targetCPUUtilizationPercentage": 50,
    }
    assert "annotations" not in v1["metadata"]
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}


def test_metrics_v1_cannot_hold_go_to_an_annotation_in_v1_shapes(api) -> None:
    api.request("POST", V2, body=_v2(metrics=[CPU_50, MEMORY, PODS]))
    v1 = api.request("GET", f"{V1}/h").json()
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 50
    assert v1["metadata"]["annotations"][METRICS] == (
        '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}},'
        '{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"10"}}]'
    )


def test_a_v1_write_back_keeps_the_v2_only_fields(api) -> None:
    api.request(
        "POST", V2, body=_v2(metrics=[CPU_50, MEMORY], behavior={"scaleDown": {"stabilizationWindowSeconds": 60}})
    )
    before = api.request("GET", f"{V2}/h").json()
    v1 = api.request("GET", f"{V1}/h").json()
    assert json.loads(v1["metadata"]["annotations"][BEHAVIOR])["ScaleDown"]["StabilizationWindowSeconds"] == 60
    v1["spec"]["targetCPUUtilizationPercentage"] = 70
    assert api.request("PUT", f"{V1}/h", body=v1).status == 200
    after = api.request("GET", f"{V2}/h").json()
    cpu_70 = {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
    }
    assert after["spec"]["metrics"] == [MEMORY, cpu_70]
    assert after["spec"]["behavior"] == before["spec"]["behavior"]
    assert "annotations" not in after["metadata"]


def test_a_v1_object_without_a_target_stores_the_default_cpu_metric(api) -> None:
    assert api.request("POST", V1, body=_v1()).status == 201
    v2 = api.request("GET", f"{V2}/h").json()
    default = {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
    }
    assert v2["spec"]["metrics"] == [default]
    assert v2["spec"]["minReplicas"] == 1


def test_a_v1_percentage_becomes_a_v2_metric(api) -> None:
    api.request("POST", V1, body=_v1(targetCPUUtilizationPercentage=50))
    assert api.request("GET", f"{V2}/h").json()["spec"]["metrics"] == [CPU_50]


def test_status_converts_with_the_raw_metrics_and_conditions_in_annotations(api) -> None:
    api.request("POST", V2, body=_v2(metrics=[CPU_50]))
    current = {
        "type": "Resource",
        "resource": {"name": "cpu", "current": {"averageUtilization": 42, "averageValue": "210m"}},
    }
    condition = {
        "type": "AbleToScale",
        "status": "True",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
        "reason": "Ready",
    }
    status = api.request("GET", f"{V2}/h/status").json()
    status["status"] = {
        "currentReplicas": 2,
        "desiredReplicas": 3,
        "currentMetrics": [current],
        "conditions": [condition],
    }
    assert api.request("PUT", f"{V2}/h/status", body=status).status == 200
    v1 = api.request("GET", f"{V1}/h").json()
    assert v1["status"] == {"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 42}
    annotations = v1["metadata"]["annotations"]
    assert annotations[CURRENT] == (
        '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":42,"currentAverageValue":"210m"}}]'
    )
    assert json.loads(annotations[CONDITIONS]) == [condition]


def test_lists_and_watches_of_v1_convert(api) -> None:
    api.request("POST", V2, body=_v2("a", metrics=[CPU_50]))
    watch = WatchReader(api, V1, {"resourceVersion": "0"})
    api.request("POST", V2, body=_v2("b", metrics=[MEMORY]))
    items = api.request("GET", V1).json()["items"]
    assert [item["spec"].get("targetCPUUtilizationPercentage") for item in items] == [50, None]
    events = watch.take(2)
    assert [e["object"]["apiVersion"] for e in events] == ["autoscaling/v1"] * 2
    assert "metrics" not in events[1]["object"]["spec"]
    assert METRICS in events[1]["object"]["metadata"]["annotations"]


def test_the_annotations_are_spelled_by_the_brand(svc_server) -> None:
    api = svc_server.client()
    api.request("POST", V2, body=_v2(metrics=[MEMORY]))
    annotations = api.request("GET", f"{V1}/h").json()["metadata"]["annotations"]
    assert list(annotations) == ["autoscaling.alpha.svc.io/metrics"]
