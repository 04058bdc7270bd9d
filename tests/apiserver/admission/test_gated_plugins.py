"""The feature-gated plugins of 1.36: PodResizeValidator (in-place resize against the node),
NodeDeclaredFeatureValidator (an update needing a feature the node does not declare), and with
GenericWorkload on PodGroupProtection, PodGroupWorkloadExists and JobValidation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from svc.client.rest import Response, RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import core_path, created

Obj = dict[str, Any]
SMP = "application/strategic-merge-patch+json"


@pytest.fixture
def client(svc_server: RunningServer) -> RestClient:
    return svc_server.client()


def _node(
    client: RestClient,
    name: str,
    system: str = "linux",
    cpu: str = "2",
    declared: tuple[str, ...] = ("GuaranteedQoSPodCPUResize",),
) -> None:
    # The svc profile spells upstream's `kubernetes.io/os` label in its own domain, as its nodes carry it.
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"svc.io/os": system}}}
    created(client, "nodes", node, "")
    allocatable = {"cpu": cpu, "memory": "4Gi", "pods": "110"}
    status = {"status": {"allocatable": allocatable, "declaredFeatures": list(declared)}}
    answer = client.request("PATCH", core_path("nodes", "", name) + "/status", body=status, content_type=SMP)
    assert answer.status == 200, answer.body


def _bound_pod(client: RestClient, node: str) -> None:
    resources = {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "500m", "memory": "1Gi"}}
    container = {"name": "app", "image": "nginx", "resources": resources}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"nodeName": node, "containers": [container]},
    }
    created(client, "pods", pod)


def _resize(client: RestClient, cpu: str) -> Response:
    resources = {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}
    patch = {"spec": {"containers": [{"name": "app", "resources": resources}]}}
    return client.request("PATCH", core_path("pods", "default", "p") + "/resize", body=patch, content_type=SMP)


def test_resize_beyond_the_nodes_allocatable_is_forbidden(client: RestClient) -> None:
    _node(client, "n1")
    _bound_pod(client, "n1")
    answer = _resize(client, "3")
    assert answer.status == 403
    body = answer.json()
    assert body["message"] == (
        'pods "p" is forbidden: Node didn\'t have enough allocatable resources: cpu, requested: 3000, allocatable: 2000'
    )
    assert body["details"]["causes"] == [{"reason": "NodeCapacity"}]


def test_resize_within_the_nodes_allocatable_is_admitted(client: RestClient) -> None:
    _node(client, "n1")
    _bound_pod(client, "n1")
    assert _resize(client, "1").status == 200


def test_resize_on_a_windows_node_is_forbidden(client: RestClient) -> None:
    _node(client, "w1", system="windows")
    _bound_pod(client, "w1")
    answer = _resize(client, "1")
    assert answer.status == 403
    assert answer.json()["message"] == (
        'pods "p" is forbidden: pod resize is only supported on linux nodes, node "w1" is "windows"'
    )
    assert answer.json()["details"]["causes"] == [{"reason": "UnsupportedPlatform"}]


def test_a_resize_needing_an_undeclared_node_feature_is_forbidden(client: RestClient) -> None:
    _node(client, "n1", declared=())
    _bound_pod(client, "n1")
    answer = _resize(client, "1")
    assert answer.status == 403
    assert answer.json()["message"] == (
        'pods "p" is forbidden: pod update requires features GuaranteedQoSPodCPUResize which are not available '
        'on node "n1"'
    )


def test_undeclared_node_features_are_not_checked_with_the_gate_off(
    svc_server_factory: Callable[..., RunningServer],
) -> None:
    client = svc_server_factory("--feature-gates=NodeDeclaredFeatures=false").client()
    _node(client, "n1", declared=())
    _bound_pod(client, "n1")
    assert _resize(client, "1").status == 200


SCHEDULING = "/apis/scheduling.svc/v1alpha2/namespaces/default"
WORKLOAD_FLAGS = ("--feature-gates=GenericWorkload=true", "--runtime-config=scheduling.svc/v1alpha2=true")


@pytest.fixture
def workloads(svc_server_factory: Callable[..., RunningServer]) -> RestClient:
    return svc_server_factory(*WORKLOAD_FLAGS).client()


def _pod_group(name: str, workload: str = "", template: str = "", gang: bool = False, owner: Obj | None = None) -> Obj:
    policy = {"gang": {"minCount": 2}} if gang else {"basic": {}}
    spec: Obj = {"schedulingPolicy": policy}
    if workload:
        spec["podGroupTemplateRef"] = {"workload": {"workloadName": workload, "podGroupTemplateName": template}}
    metadata: Obj = {"name": name}
    if owner is not None:
        metadata["ownerReferences"] = [owner]
    return {"apiVersion": "scheduling.svc/v1alpha2", "kind": "PodGroup", "metadata": metadata, "spec": spec}


def _workload(client: RestClient, name: str, template: str) -> None:
    body = {
        "apiVersion": "scheduling.svc/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": name},
        "spec": {"podGroupTemplates": [{"name": template, "schedulingPolicy": {"basic": {}}}]},
    }
    answer = client.request("POST", f"{SCHEDULING}/workloads", body=body)
    assert answer.status == 201, answer.body


def test_a_new_pod_group_gets_the_protection_finalizer(workloads: RestClient) -> None:
    answer = workloads.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("g"))
    assert answer.status == 201, answer.body
    assert answer.json()["metadata"]["finalizers"] == ["scheduling.svc/podgroup-protection"]


def test_pod_group_plugins_do_nothing_with_the_gate_off(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = svc_server_factory("--runtime-config=scheduling.svc/v1alpha2=true").client()
    answer = client.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("g", "missing", "t"))
    assert answer.status == 201, answer.body
    assert "finalizers" not in answer.json()["metadata"]


def test_a_pod_group_from_a_missing_workload_is_forbidden(workloads: RestClient) -> None:
    answer = workloads.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("g", "missing", "t"))
    assert answer.status == 403
    assert answer.json()["message"] == (
        'podgroups.scheduling.svc "g" is forbidden: PodGroup rejected: Workload "missing" not found'
    )


def test_a_pod_group_from_a_missing_template_is_forbidden(workloads: RestClient) -> None:
    _workload(workloads, "w", "workers")
    answer = workloads.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("g", "w", "leaders"))
    assert answer.status == 403
    assert answer.json()["message"] == (
        'podgroups.scheduling.svc "g" is forbidden: PodGroup rejected: PodGroupTemplate "leaders" not found in '
        'Workload "w"'
    )
    assert workloads.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("g", "w", "workers")).status == 201


JOBS = "/apis/batch/v1/namespaces/default/jobs"


def _job(client: RestClient, group: str = "") -> Obj:
    template: Obj = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    if group:
        template["spec"]["schedulingGroup"] = {"podGroupName": group}
    body = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"parallelism": 2, "template": template},
    }
    answer = client.request("POST", JOBS, body=body)
    assert answer.status == 201, answer.body
    return answer.json()


def _scale_job(client: RestClient, parallelism: int) -> Response:
    patch = {"spec": {"parallelism": parallelism}}
    return client.request("PATCH", f"{JOBS}/j", body=patch, content_type="application/merge-patch+json")


def test_parallelism_of_a_job_in_a_gang_pod_group_cannot_change(workloads: RestClient) -> None:
    assert workloads.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("gang", gang=True)).status == 201
    _job(workloads, group="gang")
    answer = _scale_job(workloads, 3)
    assert answer.status == 403
    assert answer.json()["message"] == (
        'jobs.batch "j" is forbidden: cannot change parallelism for a Job referencing gang-scheduled PodGroup "gang"'
    )


def test_parallelism_of_a_job_owning_a_gang_pod_group_cannot_change(workloads: RestClient) -> None:
    job = _job(workloads)
    owner = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": job["metadata"]["uid"], "controller": True}
    answer = workloads.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("owned", gang=True, owner=owner))
    assert answer.status == 201, answer.body
    assert _scale_job(workloads, 3).status == 403


def test_parallelism_of_a_job_in_a_basic_pod_group_may_change(workloads: RestClient) -> None:
    assert workloads.request("POST", f"{SCHEDULING}/podgroups", body=_pod_group("basic")).status == 201
    _job(workloads, group="basic")
    assert _scale_job(workloads, 3).status == 200
