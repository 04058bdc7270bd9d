"""The official Python client reads objects written through another version (issue 12 part 6)."""

from __future__ import annotations

import datetime

import pytest
from kubernetes import client, config


@pytest.fixture
def api_client(svc_server_factory):
    server = svc_server_factory("--brand-profile=kubernetes")
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield api
    api.close()


def _target() -> client.V2CrossVersionObjectReference:
    return client.V2CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="web")


def test_a_v2_autoscaler_lists_as_v1_autoscalers(api_client) -> None:
    memory = client.V2MetricSpec(
        type="Resource",
        resource=client.V2ResourceMetricSource(
            name="memory", target=client.V2MetricTarget(type="AverageValue", average_value="100Mi")
        ),
    )
    cpu = client.V2MetricSpec(
        type="Resource",
        resource=client.V2ResourceMetricSource(
            name="cpu", target=client.V2MetricTarget(type="Utilization", average_utilization=60)
        ),
    )
    body = client.V2HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V2HorizontalPodAutoscalerSpec(scale_target_ref=_target(), max_replicas=4, metrics=[memory, cpu]),
    )
    client.AutoscalingV2Api(api_client).create_namespaced_horizontal_pod_autoscaler("default", body)
    listed = client.AutoscalingV1Api(api_client).list_namespaced_horizontal_pod_autoscaler("default")
    (item,) = listed.items
    assert isinstance(item, client.V1HorizontalPodAutoscaler)
    assert item.spec.target_cpu_utilization_percentage == 60
    assert item.spec.min_replicas == 1
    assert item.status.current_replicas == 0
    assert "autoscaling.alpha.kubernetes.io/metrics" in item.metadata.annotations


def test_a_v1_autoscaler_reads_as_v2(api_client) -> None:
    body = client.V1HorizontalPodAutoscaler(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1HorizontalPodAutoscalerSpec(
            scale_target_ref=client.V1CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="web"),
            max_replicas=3,
            target_cpu_utilization_percentage=75,
        ),
    )
    client.AutoscalingV1Api(api_client).create_namespaced_horizontal_pod_autoscaler("default", body)
    read = client.AutoscalingV2Api(api_client).read_namespaced_horizontal_pod_autoscaler("web", "default")
    (metric,) = read.spec.metrics
    assert (metric.resource.name, metric.resource.target.average_utilization) == ("cpu", 75)


def test_events_of_either_api_read_through_the_other(api_client) -> None:
    when = datetime.datetime(2026, 1, 1, 0, 0, 0, 1, tzinfo=datetime.UTC)  # MicroTime wants the micros
    regarding = client.V1ObjectReference(kind="Pod", namespace="default", name="p")
    client.EventsV1Api(api_client).create_namespaced_event(
        "default",
        client.EventsV1Event(
            metadata=client.V1ObjectMeta(name="new"),
            event_time=when,
            reporting_controller="example.com/ctl",
            reporting_instance="ctl-1",
            action="Scale",
            reason="Scaled",
            regarding=regarding,
            note="scaled",
            type="Normal",
        ),
    )
    core = client.CoreV1Api(api_client).read_namespaced_event("new", "default")
    assert (core.message, core.involved_object.name, core.reporting_component) == ("scaled", "p", "example.com/ctl")
    listed = client.EventsV1Api(api_client).list_namespaced_event("default")
    assert [(e.note, e.regarding.name) for e in listed.items] == [("scaled", "p")]
