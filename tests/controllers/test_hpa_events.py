"""The Events the horizontal-pod-autoscaler records, with upstream's reasons and messages."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.client.aio import ApiError
from svc.controllers.horizontalpodautoscaler import HorizontalPodAutoscalerController
from tests.controllers.fakes import make_context
from tests.controllers.test_hpa_sync import CUSTOM, SCALE, MetricsClient, custom_value, hpa, pod, pods_metric

Obj = dict[str, Any]
NO_CUSTOM_API = (
    "unable to get metric requests: unable to fetch metrics from custom metrics API: no custom metrics API "
    "(custom.metrics.k8s.io) registered"
)


def events_of(
    autoscaler: Obj,
    served: dict[str, Obj],
    *,
    replicas: int = 2,
    selector: str = "app=web",
    failures: dict[str, ApiError] | None = None,
    scale: bool = True,
) -> list[tuple[str, str, str]]:
    """(type, reason, message) of every Event one reconcile records."""

    async def scenario() -> MetricsClient:
        context, _ = make_context("kubernetes")
        client = MetricsClient()
        context.client = client
        controller = HorizontalPodAutoscalerController(context)
        controller.pods.replace([pod("a"), pod("b")])
        client.objects.update(
            {
                "/apis/apps/v1": {"resources": [{"name": "deployments", "kind": "Deployment"}]},
                **served,
            }
        )
        if scale:
            client.objects[SCALE] = {
                "spec": {"replicas": replicas},
                "status": {"replicas": replicas, "selector": selector},
            }
        client.failures.update(failures or {})
        try:
            await controller.reconcile("team/web", autoscaler)
        except ApiError:
            pass
        return client

    client = asyncio.run(scenario())
    bodies = [body for verb, _path, body in client.events if verb == "create" and body]
    for body in bodies:
        assert body["source"]["component"] == "horizontal-pod-autoscaler"
        assert body["involvedObject"]["kind"] == "HorizontalPodAutoscaler"
    return [(body["type"], body["reason"], body["message"]) for body in bodies]


TWICE = {f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "200"), custom_value("Pod", "b", "200")]}}


def test_a_rescale_records_successful_rescale_with_the_metric_above_target() -> None:
    assert events_of(hpa(pods_metric()), TWICE) == [
        ("Normal", "SuccessfulRescale", "New size: 4; reason: pods metric requests above target")
    ]


def test_replicas_above_the_maximum_are_rescaled_with_upstreams_reason() -> None:
    assert events_of(hpa(pods_metric(), max_replicas=3), {}, replicas=5) == [
        ("Normal", "SuccessfulRescale", "New size: 3; reason: Current number of replicas above Spec.MaxReplicas")
    ]


def test_a_failing_metric_records_its_reason_then_failed_compute_metrics_replicas() -> None:
    assert events_of(hpa(pods_metric()), {}) == [
        ("Warning", "FailedGetPodsMetric", NO_CUSTOM_API),
        (
            "Warning",
            "FailedComputeMetricsReplicas",
            "invalid metrics (1 invalid out of 1), first error is: failed to get pods metric value: " + NO_CUSTOM_API,
        ),
    ]


def test_a_scale_that_cannot_be_read_records_failed_get_scale() -> None:
    events = events_of(hpa(pods_metric()), {}, scale=False)
    assert [(kind, reason) for kind, reason, _ in events] == [("Warning", "FailedGetScale")]


def test_a_scale_update_that_fails_records_failed_rescale() -> None:
    conflict = ApiError(409, {"reason": "Conflict", "message": "the object has been modified"})
    # the status write that follows fails the same way (both are updates)
    assert events_of(hpa(pods_metric()), TWICE, failures={"update": conflict}) == [
        (
            "Warning",
            "FailedRescale",
            "New size: 4; reason: pods metric requests above target; error: the object has been modified",
        ),
        ("Warning", "FailedUpdateStatus", "the object has been modified"),
    ]


def test_a_scale_without_a_selector_records_selector_required() -> None:
    assert events_of(hpa(pods_metric()), TWICE, selector="") == [
        ("Warning", "SelectorRequired", "selector is required"),
        ("Warning", "FailedComputeMetricsReplicas", "selector is required"),
    ]


def test_no_event_when_the_scale_is_kept() -> None:
    within = {
        f"{CUSTOM}/pods/%2A/requests": {"items": [custom_value("Pod", "a", "100"), custom_value("Pod", "b", "100")]}
    }
    assert events_of(hpa(pods_metric()), within) == []


def test_pods_selected_by_two_hpas_are_not_scaled_and_both_say_ambiguous_selector() -> None:
    first = hpa(pods_metric())
    second = {**first, "metadata": {**first["metadata"], "name": "rival"}}
    message = "pods by selector app=web are controlled by multiple HPAs: [team/rival team/web]"

    async def scenario() -> tuple[MetricsClient, list[str]]:
        context, _ = make_context("kubernetes")
        client = MetricsClient()
        context.client = client
        controller = HorizontalPodAutoscalerController(context)
        controller.pods.replace([pod("a"), pod("b")])
        controller.hpas.replace([first, second])  # both seen: registered, their selectors not yet known
        client.objects.update(
            {
                "/apis/apps/v1": {"resources": [{"name": "deployments", "kind": "Deployment"}]},
                SCALE: {"spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=web"}},
                **TWICE,
            }
        )
        await controller.reconcile("team/web", first)  # the rival's selector is not known yet: it scales
        client.calls.clear()
        await controller.reconcile("team/rival", second)
        await controller.reconcile("team/web", first)
        reasons = [
            condition["reason"]
            for _verb, path, body in client.calls
            if path.endswith("/status") and body
            for condition in body["status"]["conditions"]
            if condition["type"] == "ScalingActive"
        ]
        return client, reasons

    client, reasons = asyncio.run(scenario())
    bodies = [body for verb, _path, body in client.events if verb == "create" and body]
    recorded = [(body["involvedObject"]["name"], body["reason"], body["message"]) for body in bodies]
    assert recorded[-4:] == [
        ("rival", "AmbiguousSelector", message),
        ("rival", "FailedComputeMetricsReplicas", message),
        ("web", "AmbiguousSelector", message),
        ("web", "FailedComputeMetricsReplicas", message),
    ]
    assert reasons == ["AmbiguousSelector", "AmbiguousSelector"]
    assert not any(path == SCALE for verb, path, _ in client.calls if verb == "update")


def test_a_deleted_hpa_no_longer_makes_the_selector_ambiguous() -> None:
    first = hpa(pods_metric())
    second = {**first, "metadata": {**first["metadata"], "name": "rival"}}

    async def scenario() -> list[str]:
        context, _ = make_context("kubernetes")
        client = MetricsClient()
        context.client = client
        controller = HorizontalPodAutoscalerController(context)
        controller.pods.replace([pod("a"), pod("b")])
        controller.hpas.replace([first, second])
        client.objects.update(
            {
                "/apis/apps/v1": {"resources": [{"name": "deployments", "kind": "Deployment"}]},
                SCALE: {"spec": {"replicas": 2}, "status": {"replicas": 2, "selector": "app=web"}},
                **TWICE,
            }
        )
        await controller.reconcile("team/rival", second)
        controller.hpas.replace([first])  # the rival is deleted
        await controller.reconcile("team/web", first)
        return [body["reason"] for verb, _path, body in client.events if verb == "create" and body]

    assert asyncio.run(scenario())[-1] == "SuccessfulRescale"
