"""The horizontal-pod-autoscaler's sync with Pods, Object and External metrics, over seeded caches and a
client that serves the custom and external metrics APIs' answers by path."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from svc.client.aio import ApiError
from svc.controllers.horizontalpodautoscaler import HorizontalPodAutoscalerController
from tests.controllers.fakes import RecordingClient, make_context

Obj = dict[str, Any]
SCALE = "/apis/apps/v1/namespaces/team/deployments/web/scale"
STATUS = "/apis/autoscaling/v2/namespaces/team/horizontalpodautoscalers/web/status"
CUSTOM = "/apis/custom.metrics.k8s.io/v1beta2/namespaces/team"
EXTERNAL = "/apis/external.metrics.k8s.io/v1beta1/namespaces/team"
RUNNING = "2026-01-01T00:00:00Z"


class MetricsClient(RecordingClient):
    """Also records the query parameters of every GET."""

    def __init__(self) -> None:
        super().__init__()
        self.params: dict[str, dict[str, str]] = {}

    async def get(self, path: str, **params: str) -> Obj:
        self.params[path] = params
        return await super().get(path)


def pod(name: str, *, ready: bool = True) -> Obj:
    condition = {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": RUNNING}
    return {
        "metadata": {"name": name, "namespace": "team", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app"}]},
        "status": {"phase": "Running", "startTime": RUNNING, "conditions": [condition]},
    }


def hpa(*metrics: Obj, max_replicas: int = 10) -> Obj:
    return {
        "metadata": {"name": "web", "namespace": "team", "generation": 1},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 1,
            "maxReplicas": max_replicas,
            "metrics": list(metrics),
        },
    }


def custom_value(kind: str, name: str, value: str) -> Obj:
    return {
        "describedObject": {"kind": kind, "namespace": "team", "name": name, "apiVersion": "v1"},
        "metric": {"name": "m"},
        "timestamp": RUNNING,
        "value": value,
    }


def run(autoscaler: Obj, pods: list[Obj], served: dict[str, Obj], *, replicas: int = 2) -> MetricsClient:
    """One reconcile of `autoscaler` over a Deployment at `replicas` (without a `behavior`, upstream
    scales up to at most twice the replicas, or 4)."""

    async def scenario() -> MetricsClient:
        context, _ = make_context("kubernetes")
        client = MetricsClient()
        context.client = client
        controller = HorizontalPodAutoscalerController(context)
        controller.hpas.replace([autoscaler])
        controller.pods.replace(pods)
        client.objects.update(
            {
                "/apis/apps/v1": {"resources": [{"name": "deployments", "kind": "Deployment"}]},
                "/api/v1": {"resources": [{"name": "services", "kind": "Service"}]},
                SCALE: {"spec": {"replicas": replicas}, "status": {"replicas": replicas, "selector": "app=web"}},
                **served,
            }
        )
        await controller.reconcile("team/web", autoscaler)
        return client

    return asyncio.run(scenario())


def scaled_to(client: MetricsClient) -> int | None:
    updates = [body for verb, path, body in client.calls if verb == "update" and path == SCALE]
    return updates[-1]["spec"]["replicas"] if updates else None


def status(client: MetricsClient) -> Obj:
    return [body for verb, path, body in client.calls if verb == "update" and path == STATUS][-1]["status"]


def condition(client: MetricsClient, kind: str) -> tuple[str, str, str]:
    found = next(c for c in status(client)["conditions"] if c["type"] == kind)
    return found["status"], found["reason"], found["message"]


def pods_metric(name: str = "requests", average: str = "100", selector: Obj | None = None) -> Obj:
    metric: Obj = {"name": name, **({"selector": selector} if selector is not None else {})}
    return {"type": "Pods", "pods": {"metric": metric, "target": {"type": "AverageValue", "averageValue": average}}}


def test_a_pods_metric_above_its_average_target_scales_up_by_the_ratio() -> None:
    served = {
        f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "200"), custom_value("Pod", "b", "200")]}
    }
    client = run(hpa(pods_metric()), [pod("a"), pod("b")], served)
    assert scaled_to(client) == 4
    assert client.params[f"{CUSTOM}/pods/%2A/requests"] == {"labelSelector": "app=web"}
    assert status(client)["currentMetrics"] == [
        {"type": "Pods", "pods": {"metric": {"name": "requests"}, "current": {"averageValue": "200"}}}
    ]
    assert condition(client, "ScalingActive") == (
        "True",
        "ValidMetricFound",
        "the HPA was able to successfully calculate a replica count from pods metric requests",
    )


def test_a_pods_metric_selector_is_sent_as_the_metric_label_selector() -> None:
    served = {
        f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "100"), custom_value("Pod", "b", "100")]}
    }
    metric = pods_metric(selector={"matchLabels": {"verb": "GET"}})
    client = run(hpa(metric), [pod("a"), pod("b")], served)
    assert client.params[f"{CUSTOM}/pods/%2A/requests"] == {
        "labelSelector": "app=web",
        "metricLabelSelector": "verb=GET",
    }
    assert scaled_to(client) is None
    assert status(client)["currentMetrics"][0]["pods"]["metric"] == {
        "name": "requests",
        "selector": {"matchLabels": {"verb": "GET"}},
    }


def test_pods_without_a_value_count_at_the_target_on_the_way_down() -> None:
    # a at 10 of 100, b missing (counted at 100): the average 55 asks for 2 of the 2 pods
    served = {f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "10")]}}
    client = run(hpa(pods_metric()), [pod("a"), pod("b")], served)
    assert scaled_to(client) is None
    assert status(client)["desiredReplicas"] == 2


def test_without_a_custom_metrics_api_a_pods_metric_fails_with_upstreams_reason() -> None:
    client = run(hpa(pods_metric()), [pod("a"), pod("b")], {})
    assert condition(client, "ScalingActive") == (
        "False",
        "FailedGetPodsMetric",
        "the HPA was unable to compute the replica count: unable to get metric requests: unable to fetch metrics "
        "from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered",
    )
    assert scaled_to(client) is None


def test_an_empty_custom_metrics_answer_is_an_error() -> None:
    served = {f"{CUSTOM}/pods/%2A/requests": {"items": []}}
    client = run(hpa(pods_metric()), [pod("a")], served)
    assert condition(client, "ScalingActive")[2] == (
        "the HPA was unable to compute the replica count: unable to get metric requests: no metrics returned from "
        "custom metrics API"
    )


def test_a_custom_metric_value_that_is_no_quantity_fails_the_fetch_with_upstreams_reason() -> None:
    served = {f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "lots")]}}
    client = run(hpa(pods_metric()), [pod("a")], served)
    assert condition(client, "ScalingActive") == (
        "False",
        "FailedGetPodsMetric",
        "the HPA was unable to compute the replica count: unable to get metric requests: unable to fetch metrics "
        "from custom metrics API: quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    )
    assert scaled_to(client) is None


def object_metric(target: Obj, described: Obj | None = None) -> Obj:
    described = described or {"apiVersion": "v1", "kind": "Service", "name": "front"}
    return {"type": "Object", "object": {"describedObject": described, "metric": {"name": "rps"}, "target": target}}


def test_an_object_value_target_scales_the_ready_pods_by_the_ratio() -> None:
    # 30 against 10: three times the 2 ready pods (the unready third does not count)
    served = {f"{CUSTOM}/services/front/rps": {"items": [custom_value("Service", "front", "30")]}}
    pods = [pod("a"), pod("b"), pod("c", ready=False)]
    client = run(hpa(object_metric({"type": "Value", "value": "10"})), pods, served, replicas=3)
    assert scaled_to(client) == 6
    assert status(client)["currentMetrics"] == [
        {
            "type": "Object",
            "object": {
                "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "front"},
                "metric": {"name": "rps"},
                "current": {"value": "30"},
            },
        }
    ]
    assert condition(client, "ScalingActive")[2].endswith("from Service metric rps")


def test_an_object_value_within_the_tolerance_keeps_the_scale() -> None:
    served = {f"{CUSTOM}/services/front/rps": {"items": [custom_value("Service", "front", "10500m")]}}
    client = run(hpa(object_metric({"type": "Value", "value": "10"})), [pod("a"), pod("b")], served)
    assert scaled_to(client) is None
    assert status(client)["desiredReplicas"] == 2


def test_an_object_average_value_target_divides_the_value_among_the_replicas() -> None:
    served = {f"{CUSTOM}/services/front/rps": {"items": [custom_value("Service", "front", "50")]}}
    # 50 against 10 a replica: 5 replicas, 12.5 each of the 4 there are now
    client = run(
        hpa(object_metric({"type": "AverageValue", "averageValue": "10"})), [pod("a"), pod("b")], served, replicas=4
    )
    assert scaled_to(client) == 5
    assert status(client)["currentMetrics"] == [
        {
            "type": "Object",
            "object": {
                "describedObject": {"kind": "", "name": ""},
                "metric": {"name": "rps"},
                "current": {"averageValue": "12500m"},
            },
        }
    ]
    assert condition(client, "ScalingActive")[2].endswith("from external metric rps(nil)")


def test_a_namespace_object_metric_is_read_from_the_root_scoped_path() -> None:
    served = {f"{CUSTOM}/metrics/rps": {"items": [custom_value("Namespace", "team", "40")]}}
    described = {"apiVersion": "v1", "kind": "Namespace", "name": "team"}
    client = run(
        hpa(object_metric({"type": "Value", "value": "10"}, described)), [pod("a"), pod("b")], served, replicas=4
    )
    assert scaled_to(client) == 8


def test_an_object_metric_with_more_than_one_value_is_an_error() -> None:
    item = custom_value("Service", "front", "5")
    served = {f"{CUSTOM}/services/front/rps": {"items": [item, item]}}
    client = run(hpa(object_metric({"type": "Value", "value": "10"})), [pod("a")], served)
    assert condition(client, "ScalingActive") == (
        "False",
        "FailedGetObjectMetric",
        "the HPA was unable to compute the replica count: unable to get metric rps: Service on team front/unable "
        "to fetch metrics from custom metrics API: the custom metrics API server returned 2 results when we asked "
        "for exactly one",
    )


def test_an_object_of_an_unknown_kind_cannot_be_mapped_to_a_resource() -> None:
    metric = object_metric({"type": "Value", "value": "10"}, {"apiVersion": "v1", "kind": "Gadget", "name": "g"})
    client = run(hpa(metric), [pod("a")], {})
    assert condition(client, "ScalingActive")[2] == (
        "the HPA was unable to compute the replica count: unable to get metric rps: Gadget on team g/unable to "
        'fetch metrics from custom metrics API: unable to map kind Gadget to resource: no matches for kind "Gadget" '
        'in group ""'
    )


def external_metric(target: Obj, selector: Obj | None = None) -> Obj:
    metric: Obj = {"name": "queue_messages", **({"selector": selector} if selector is not None else {})}
    return {"type": "External", "external": {"metric": metric, "target": target}}


def external_values(*values: str) -> Obj:
    return {"items": [{"metricName": "queue_messages", "timestamp": RUNNING, "value": v} for v in values]}


def test_an_external_average_value_target_sums_the_values_over_the_target_per_replica() -> None:
    served = {f"{EXTERNAL}/queue_messages": external_values("30", "20")}
    selector = {"matchLabels": {"queue": "orders"}}
    metric = external_metric({"type": "AverageValue", "averageValue": "10"}, selector)
    client = run(hpa(metric), [pod("a"), pod("b")], served, replicas=4)
    assert client.params[f"{EXTERNAL}/queue_messages"] == {"labelSelector": "queue=orders"}
    assert scaled_to(client) == 5
    assert status(client)["currentMetrics"] == [
        {
            "type": "External",
            "external": {
                "metric": {"name": "queue_messages", "selector": selector},
                "current": {"averageValue": "12500m"},
            },
        }
    ]
    assert condition(client, "ScalingActive")[2].endswith(
        "from external metric queue_messages(&LabelSelector{MatchLabels:map[string]string{queue: orders,},"
        "MatchExpressions:[]LabelSelectorRequirement{},})"
    )


def test_an_external_value_target_scales_the_ready_pods_by_the_ratio() -> None:
    served = {f"{EXTERNAL}/queue_messages": external_values("15")}
    client = run(hpa(external_metric({"type": "Value", "value": "5"})), [pod("a"), pod("b")], served, replicas=4)
    assert client.params[f"{EXTERNAL}/queue_messages"] == {}
    assert scaled_to(client) == 6
    assert status(client)["currentMetrics"][0]["external"]["current"] == {"value": "15"}


def test_no_external_values_is_an_error_with_upstreams_text() -> None:
    served = {f"{EXTERNAL}/queue_messages": external_values()}
    client = run(hpa(external_metric({"type": "Value", "value": "5"})), [pod("a")], served)
    assert condition(client, "ScalingActive") == (
        "False",
        "FailedGetExternalMetric",
        "the HPA was unable to compute the replica count: unable to get external metric team/queue_messages/nil: "
        "no metrics returned from external metrics API",
    )


def test_the_largest_proposal_of_several_metric_types_wins() -> None:
    served = {
        f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "100"), custom_value("Pod", "b", "100")]},
        f"{EXTERNAL}/queue_messages": external_values("70"),
    }
    metrics = (pods_metric(), external_metric({"type": "AverageValue", "averageValue": "10"}))
    client = run(hpa(*metrics), [pod("a"), pod("b")], served, replicas=4)
    assert scaled_to(client) == 7
    assert [m["type"] for m in status(client)["currentMetrics"]] == ["Pods", "External"]


class StaleCacheClient(MetricsClient):
    """The first status write conflicts, as when the cached HPA predates the controller's last write."""

    def __init__(self, stored: Obj) -> None:
        super().__init__()
        self.objects[STATUS] = stored
        self.conflicted = False

    async def update(self, path: str, body: Obj) -> Obj:
        if path == STATUS and not self.conflicted:
            self.conflicted = True
            self.calls.append(("update", path, body))
            raise ApiError(409, {"kind": "Status", "code": 409, "reason": "Conflict"})
        return await super().update(path, body)


def _rescale_over_stale_cache(stored_generation: int) -> StaleCacheClient:
    served = {
        f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "200"), custom_value("Pod", "b", "200")]}
    }
    autoscaler = hpa(pods_metric())
    stored = {"metadata": {**autoscaler["metadata"], "generation": stored_generation, "resourceVersion": "9"}}

    async def scenario() -> StaleCacheClient:
        context, _ = make_context("kubernetes")
        client = StaleCacheClient(stored)
        context.client = client
        controller = HorizontalPodAutoscalerController(context)
        controller.hpas.replace([autoscaler])
        controller.pods.replace([pod("a"), pod("b")])
        client.objects.update(
            {
                "/apis/apps/v1": {"resources": [{"name": "deployments", "kind": "Deployment"}]},
                SCALE: {"spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=web"}},
                **served,
            }
        )
        with contextlib.suppress(ApiError):
            await controller.reconcile("team/web", autoscaler)
        return client

    return asyncio.run(scenario())


def test_a_rescale_status_that_conflicts_is_written_over_the_stored_version() -> None:
    client = _rescale_over_stale_cache(stored_generation=1)
    written = [body for verb, path, body in client.calls if verb == "update" and path == STATUS]
    assert len(written) == 2
    assert written[-1]["metadata"]["resourceVersion"] == "9"
    assert written[-1]["status"]["lastScaleTime"]


def test_a_conflicting_status_is_not_rewritten_when_the_spec_changed() -> None:
    client = _rescale_over_stale_cache(stored_generation=2)
    written = [body for verb, path, body in client.calls if verb == "update" and path == STATUS]
    assert len(written) == 1
    assert [reason for _, _, event in client.events if (reason := (event or {}).get("reason"))][-1] == (
        "FailedUpdateStatus"
    )


def test_a_scale_read_that_times_out_is_reported_as_failed_get_scale() -> None:
    class TimingOut(MetricsClient):
        async def get(self, path: str, **params: str) -> Obj:
            if path == SCALE:
                raise TimeoutError("timed out")
            return await super().get(path, **params)

    async def scenario() -> TimingOut:
        context, _ = make_context("kubernetes")
        client = TimingOut()
        context.client = client
        controller = HorizontalPodAutoscalerController(context)
        client.objects["/apis/apps/v1"] = {"resources": [{"name": "deployments", "kind": "Deployment"}]}
        await controller.reconcile("team/web", hpa(pods_metric()))
        return client

    client = asyncio.run(scenario())
    assert condition(client, "AbleToScale") == (
        "False",
        "FailedGetScale",
        "the HPA controller was unable to get the target's current scale: timed out",
    )
    assert [(body["reason"], body["message"]) for _, _, body in client.events] == [("FailedGetScale", "timed out")]
