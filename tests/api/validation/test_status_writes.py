"""Writes through `/status` run the kind's status validation (upstream's `ValidateXStatusUpdate`): a 422
with upstream's causes, nothing stored; the spec stays as stored."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.api.validation.support import assert_causes
from tests.conftest import TOOLS
from tests.e2e.kubectl_runner import Kubectl

INVALID, FORBIDDEN, REQUIRED = "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired"
NS = "/api/v1/namespaces/default"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]},
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d"},
    "spec": {
        "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
    },
}


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes")


def _write_status(client, collection: str, body: dict[str, Any], status: dict[str, Any]):
    created = client.request("POST", collection, body=body)
    assert created.status == 201, created.body
    obj = created.json()
    obj["status"] = {**(obj.get("status") or {}), **status}
    return client.request("PUT", f"{collection}/{obj['metadata']['name']}/status", body=obj)


def _causes(answer) -> list[tuple[str, str, str]]:
    assert answer.status == 422, answer.body
    return [(c["field"], c["reason"], c["message"]) for c in answer.json()["details"]["causes"]]


def test_pod_status_rules(server) -> None:
    client = server.client()
    answer = _write_status(
        client,
        f"{NS}/pods",
        POD,
        {
            "conditions": [{"type": "bad type!", "status": "True"}],
            "nominatedNodeName": "Not_A_Node",
            "podIPs": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}],
            "hostIP": "10.1.0.1",
            "hostIPs": [{"ip": "10.1.0.2"}],
        },
    )
    fields = [(field, reason) for field, reason, _ in _causes(answer)]
    assert fields == [
        ("status.conditions[0].Type", INVALID),
        ("status.nominatedNodeName", INVALID),
        ("status.podIPs", INVALID),
        ("status.hostIPs[0].ip", INVALID),
    ]
    assert client.request("GET", f"{NS}/pods/p").json()["status"].get("podIPs") is None


def test_pod_terminated_container_may_not_run_again(server) -> None:
    client = server.client()
    body = {**POD, "metadata": {"name": "done"}}
    terminated = {"name": "c", "state": {"terminated": {"exitCode": 0}}}
    assert _write_status(client, f"{NS}/pods", body, {"containerStatuses": [terminated]}).status == 200
    pod = client.request("GET", f"{NS}/pods/done").json()
    pod["status"]["containerStatuses"] = [{"name": "c", "state": {"running": {}}}]
    answer = client.request("PUT", f"{NS}/pods/done/status", body=pod)
    assert_causes(
        _causes(answer),
        [("status.containerStatuses[0].state", FORBIDDEN, "may not be transitioned to non-terminated state")],
    )


def test_pod_qos_class_is_immutable(server) -> None:
    client = server.client()
    answer = _write_status(client, f"{NS}/pods", {**POD, "metadata": {"name": "qos"}}, {"qosClass": "Guaranteed"})
    assert_causes(_causes(answer), [("status.qosClass", INVALID, "field is immutable")])


def test_service_load_balancer_status(server) -> None:
    client = server.client()
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}
    answer = _write_status(client, f"{NS}/services", service, {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}})
    detail = "may only be used when `spec.type` is 'LoadBalancer'"
    assert_causes(_causes(answer), [("status.loadBalancer.ingress", FORBIDDEN, detail)])
    balanced = {**service, "metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]}}
    points = [{"ip": "300.1.1.1", "ipMode": "VIP"}, {"hostname": "1.2.3.4"}, {"hostname": "x.example", "ipMode": "VIP"}]
    answer = _write_status(client, f"{NS}/services", balanced, {"loadBalancer": {"ingress": points}})
    assert [(field, reason) for field, reason, _ in _causes(answer)] == [
        ("status.loadBalancer.ingress[0].ip", INVALID),
        ("status.loadBalancer.ingress[1].hostname", INVALID),
        ("status.loadBalancer.ingress[2].ipMode", FORBIDDEN),
    ]


def test_a_service_that_stops_being_a_load_balancer_loses_its_load_balancer_status(server) -> None:
    """Upstream's `dropTypeDependentFields`: the status of a load balancer that is no longer one is cleared
    by the update that changes the type (upstream 1.36 has no gate to keep it)."""
    client = server.client()
    balanced = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "lb"}}
    balanced["spec"] = {"type": "LoadBalancer", "ports": [{"port": 80}]}
    point = {"ip": "1.2.3.4", "ipMode": "VIP"}
    answer = _write_status(client, f"{NS}/services", balanced, {"loadBalancer": {"ingress": [point]}})
    assert answer.status == 200, answer.body
    service = answer.json()
    service["spec"]["type"] = "ClusterIP"
    for port in service["spec"]["ports"]:
        port.pop("nodePort", None)
    updated = client.request("PUT", f"{NS}/services/lb", body=service)
    assert updated.status == 200, updated.body
    assert updated.json()["status"]["loadBalancer"] == {}


def test_node_status_resources_and_addresses(server) -> None:
    client = server.client()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    address = {"type": "InternalIP", "address": "10.0.0.5"}
    answer = _write_status(client, "/api/v1/nodes", node, {"capacity": {"cpu": "-1"}, "addresses": [address, address]})
    assert [(field, reason) for field, reason, _ in _causes(answer)] == [
        ("status.capacity[cpu]", INVALID),
        ("status.addresses[1]", "FieldValueDuplicate"),
    ]


def test_claim_and_namespace_status(server) -> None:
    client = server.client()
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    answer = _write_status(client, f"{NS}/persistentvolumeclaims", claim, {"allocatedResources": {"cpu": "1"}})
    assert [(field, reason) for field, reason, _ in _causes(answer)] == [
        ("status.allocatedResources", "FieldValueNotSupported")
    ]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns-status"}}
    answer = _write_status(client, "/api/v1/namespaces", namespace, {"phase": "Terminating"})
    assert_causes(_causes(answer), [("status.Phase", INVALID, "may only be 'Active' if `deletionTimestamp` is empty")])


def test_deployment_counts(server) -> None:
    client = server.client()
    answer = _write_status(
        client,
        "/apis/apps/v1/namespaces/default/deployments",
        DEPLOYMENT,
        {"replicas": 1, "readyReplicas": 2, "availableReplicas": -1},
    )
    assert_causes(
        _causes(answer),
        [
            ("status.availableReplicas", INVALID, "must be greater than or equal to 0"),
            ("status.readyReplicas", INVALID, "cannot be greater than status.replicas"),
        ],
    )


def test_job_status_transitions(server) -> None:
    client = server.client()
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}},
    }
    answer = _write_status(
        client, "/apis/batch/v1/namespaces/default/jobs", job, {"completedIndexes": "0", "active": 1, "ready": 2}
    )
    assert_causes(
        _causes(answer),
        [
            (
                "status.completedIndexes",
                INVALID,
                "cannot set non-empty completedIndexes when non-indexed completion mode",
            ),
            ("status.ready", INVALID, "cannot set more ready pods than active"),
        ],
    )


def test_hpa_pdb_and_ingress_status(server) -> None:
    client = server.client()
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3},
    }
    answer = _write_status(
        client, "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa, {"desiredReplicas": -1}
    )
    assert_causes(_causes(answer), [("status.desiredReplicasa", INVALID, "must be greater than or equal to 0")])
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {}}
    answer = _write_status(
        client,
        "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
        pdb,
        {"currentHealthy": -2, "conditions": [{"type": "DisruptionAllowed", "status": "Maybe"}]},
    )
    assert [(field, reason) for field, reason, _ in _causes(answer)] == [
        ("status.conditions[0].status", "FieldValueNotSupported"),
        ("status.conditions[0].lastTransitionTime", REQUIRED),
        ("status.conditions[0].reason", REQUIRED),
        ("status.currentHealthy", INVALID),
    ]
    ingress = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "i"}, "spec": {}}
    answer = _write_status(
        client,
        "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
        {**ingress, "spec": {"defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}}},
        {"loadBalancer": {"ingress": [{"ip": "not-an-ip"}]}},
    )
    assert [(field, reason) for field, reason, _ in _causes(answer)] == [("status.loadBalancer.ingress[0].ip", INVALID)]


def test_kubectl_status_subresource_patch_is_refused(server) -> None:
    kubectl = Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)
    kubectl.run("create", "-f", "-", stdin=json.dumps({**DEPLOYMENT, "metadata": {"name": "kd"}}))
    result = kubectl.run(
        "patch",
        "deployment",
        "kd",
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"replicas":-3}}',
        check=False,
    )
    assert result.returncode != 0
    assert "status.replicas: Invalid value: -3: must be greater than or equal to 0" in result.stderr


def test_job_may_not_fail_without_a_failure_target(server) -> None:
    client = server.client()
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "f"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}},
    }
    failed = {"type": "Failed", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}
    answer = _write_status(
        client, "/apis/batch/v1/namespaces/default/jobs", job, {"conditions": [failed], "startTime": None}
    )
    assert_causes(
        _causes(answer),
        [
            ("status.conditions", INVALID, "cannot set Failed=True condition without the FailureTarget=true condition"),
            ("status.startTime", REQUIRED, "startTime is required for finished job"),
        ],
    )


def test_a_status_write_keeps_the_stored_spec(server) -> None:
    client = server.client()
    collection = "/apis/apps/v1/namespaces/default/deployments"
    created = client.request("POST", collection, body={**DEPLOYMENT, "metadata": {"name": "keep"}}).json()
    created["spec"]["replicas"] = 7
    created["status"] = {"observedGeneration": 1}
    written = client.request("PUT", f"{collection}/keep/status", body=created)
    assert written.status == 200, written.body
    stored = client.request("GET", f"{collection}/keep").json()
    assert (stored["spec"]["replicas"], stored["status"]["observedGeneration"]) == (1, 1)


def test_a_load_balancer_ip_defaults_to_the_vip_mode(server) -> None:
    client = server.client()
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vip"},
        "spec": {"type": "LoadBalancer", "ports": [{"port": 80}]},
    }
    answer = _write_status(client, f"{NS}/services", service, {"loadBalancer": {"ingress": [{"ip": "192.0.2.9"}]}})
    assert answer.status == 200, answer.body
    assert answer.json()["status"]["loadBalancer"]["ingress"] == [{"ip": "192.0.2.9", "ipMode": "VIP"}]


def test_job_index_lists_are_read_as_upstream_reads_them(server) -> None:
    client = server.client()
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "indexed"},
        "spec": {
            "completions": 5,
            "parallelism": 1,
            "completionMode": "Indexed",
            "backoffLimitPerIndex": 1,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}},
        },
    }
    answer = _write_status(
        client, "/apis/batch/v1/namespaces/default/jobs", job, {"completedIndexes": "0,7", "failedIndexes": "0"}
    )
    assert_causes(
        _causes(answer),
        [
            ("status.completedIndexes", INVALID, 'error parsing completedIndexes: too large index: "7"'),
            ("status.failedIndexes", INVALID, "failedIndexes and completedIndexes overlap at index: 0"),
        ],
    )


def test_pod_container_statuses_report_valid_users_and_requested_devices(server) -> None:
    client = server.client()
    container = {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    body = {**POD, "metadata": {"name": "devices"}, "spec": {**POD["spec"], "containers": [container]}}
    status = {
        "name": "c",
        "image": "busybox",
        "imageID": "",
        "ready": False,
        "restartCount": 0,
        "user": {"linux": {"uid": -1, "gid": 0}},
        "allocatedResourcesStatus": [{"name": "gpu", "resources": [{"resourceID": "a", "health": "Sick"}]}],
    }
    answer = _write_status(client, f"{NS}/pods", body, {"containerStatuses": [status]})
    assert_causes(
        _causes(answer),
        [
            ("status.containerStatuses[0].user.linux.uid", INVALID, "must be between 0 and 2147483647, inclusive"),
            (
                "status.containerStatuses[0].allocatedResourcesStatus[0].name",
                INVALID,
                "must match one of the container's resource requests",
            ),
            (
                "status.containerStatuses[0].allocatedResourcesStatus[0].resources[0].health",
                "FieldValueNotSupported",
                'supported values: "Healthy", "Unhealthy", "Unknown"',
            ),
        ],
    )


def test_a_bound_pod_may_not_be_nominated_to_a_node(server) -> None:
    client = server.client()
    body = {**POD, "metadata": {"name": "bound"}, "spec": {**POD["spec"], "nodeName": "n1"}}
    answer = _write_status(client, f"{NS}/pods", body, {"nominatedNodeName": "n2", "observedGeneration": -1})
    assert_causes(
        _causes(answer),
        [
            ("status.nominatedNodeName", FORBIDDEN, "may not be set on pods that are already bound to a node"),
            ("status.observedGeneration", INVALID, "must be a non-negative integer"),
        ],
    )


def test_pod_condition_and_claim_status_paths_are_upstream_1_36s(server) -> None:
    client = server.client()
    claims = [{"name": "gpu", "resourceClaimName": "gpu"}]
    body = {**POD, "metadata": {"name": "paths"}, "spec": {**POD["spec"], "resourceClaims": claims}}
    status = {
        "conditions": [{"type": "example.com/Ok", "status": "True", "observedGeneration": -1}],
        "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "Not_Valid"}],
    }
    causes = _causes(_write_status(client, f"{NS}/pods", body, status))
    assert [(field, reason) for field, reason, _ in causes] == [
        ("status.conditions[0].observedGeneration", INVALID),
        ("status.resourceClaimStatuses[0].resourceClaimName", INVALID),
    ]


def test_claim_resize_statuses_name_the_map_and_refuse_native_keys(server) -> None:
    client = server.client()
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "resize"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    statuses = {"storage": "Resizing", "cpu": "NodeResizePending"}
    allocated = {"example.com/disk": "1Gi", "storage": "2Gi"}
    answer = _write_status(
        client,
        f"{NS}/persistentvolumeclaims",
        claim,
        {"allocatedResourceStatuses": statuses, "allocatedResources": allocated},
    )
    supported = (
        'supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", '
        '"NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"'
    )
    assert_causes(
        _causes(answer),
        [
            ("status.allocatedResourceStatuses", "FieldValueNotSupported", 'supported values: "storage"'),
            ("status.allocatedResourceStatuses", "FieldValueNotSupported", supported),
        ],
    )


def test_device_health_messages_are_non_empty_and_short(server) -> None:
    client = server.client()
    gpu = {"example.com/gpu": "1"}
    container = {"name": "c", "image": "busybox", "resources": {"requests": gpu, "limits": gpu}}
    body = {**POD, "metadata": {"name": "health"}, "spec": {**POD["spec"], "containers": [container]}}
    devices = [
        {"resourceID": "a", "health": "Healthy", "message": ""},
        {"resourceID": "b", "health": "Unhealthy", "message": "x" * 1025},
    ]
    status = {
        "containerStatuses": [
            {
                "name": "c",
                "image": "busybox",
                "imageID": "",
                "ready": False,
                "restartCount": 0,
                "allocatedResourcesStatus": [{"name": "example.com/gpu", "resources": devices}],
            }
        ]
    }
    where = "status.containerStatuses[0].allocatedResourcesStatus[0].resources"
    assert_causes(
        _causes(_write_status(client, f"{NS}/pods", body, status)),
        [
            (f"{where}[0].message", REQUIRED, "must be non-empty if specified"),
            (f"{where}[1].message", "FieldValueTooLong", "may not be more than 1024 bytes"),
        ],
    )


def test_pod_reports_of_node_allocatable_claims(svc_server_factory) -> None:
    """With DRANodeAllocatableResources on: while it is off the field is dropped before validation."""
    client = svc_server_factory(
        "--brand-profile=kubernetes", "--feature-gates=DRANodeAllocatableResources=true"
    ).client()
    gpu = {"example.com/gpu": "1"}
    container = {"name": "c", "image": "busybox", "resources": {"requests": gpu, "limits": gpu}}
    claims = [{"name": "cpus", "resourceClaimName": "cpu-claim"}]
    spec = {**POD["spec"], "containers": [container], "resourceClaims": claims}
    status = {
        "nodeAllocatableResourceClaimStatuses": [
            {"resourceClaimName": "cpu-claim", "containers": ["c"], "resources": {"cpu": "2"}},
            {"resourceClaimName": "stranger", "resources": {"example.com/gpu": "-1"}},
        ],
    }
    answer = _write_status(client, f"{NS}/pods", {**POD, "metadata": {"name": "claims"}, "spec": spec}, status)
    allocatable = "status.nodeAllocatableResourceClaimStatuses[1]"
    assert_causes(
        _causes(answer),
        [
            (f"{allocatable}.resourceClaimName", INVALID, "no mapping found in pod reference"),
            (f"{allocatable}.containers", REQUIRED, "must not be empty"),
            (f"{allocatable}.resources[example.com/gpu]", INVALID, "must be a node allocatable resource name"),
            (f"{allocatable}.resources[example.com/gpu]", INVALID, "must be non-negative"),
        ],
    )
