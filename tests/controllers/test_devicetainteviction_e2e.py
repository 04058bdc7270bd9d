"""The device-taint-eviction controller in the real daemon beside a real API server: a pod using a
device whose slice gets a NoExecute taint is evicted."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

SLICES = "/apis/resource.svc/v1/resourceslices"
CLAIMS = "/apis/resource.svc/v1/namespaces/default/resourceclaims"
PODS = "/api/v1/namespaces/default/pods"
MERGE = "application/merge-patch+json"


def test_a_pod_on_a_device_tainted_noexecute_is_evicted(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    assert rest.request("POST", "/api/v1/nodes", body={"metadata": {"name": "n1"}}).status == 201
    spec = {
        "driver": "gpu.example.com",
        "nodeName": "n1",
        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
        "devices": [{"name": "gpu-0"}],
    }
    assert rest.request("POST", SLICES, body={"metadata": {"name": "n1-gpus"}, "spec": spec}).status == 201
    requests = [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]
    made = rest.request("POST", CLAIMS, body={"metadata": {"name": "gpu"}, "spec": {"devices": {"requests": requests}}})
    assert made.status == 201, made.json()
    pod_spec = {
        "nodeName": "n1",
        "containers": [{"name": "c", "image": "busybox", "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu"}],
    }
    created = rest.request("POST", PODS, body={"metadata": {"name": "worker"}, "spec": pod_spec})
    assert created.status == 201, created.json()
    result = {"request": "gpu", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}
    status = {
        "status": {
            "allocation": {"devices": {"results": [result]}},
            "reservedFor": [{"resource": "pods", "name": "worker", "uid": created.json()["metadata"]["uid"]}],
        }
    }
    allocated = rest.request("PATCH", f"{CLAIMS}/gpu/status", body=status, content_type=MERGE)
    assert allocated.status == 200, allocated.json()
    svc_controller_manager(svc_server, "--controllers=device-taint-eviction-controller")

    def evicted() -> bool:
        """Deleted: terminating for its grace period, as no kubelet runs on n1 to finish the deletion."""
        found = rest.request("GET", f"{PODS}/worker")
        return found.status == 404 or "deletionTimestamp" in found.json()["metadata"]

    assert not wait_for(evicted, timeout=1)
    taints = {"spec": {"devices": [{"name": "gpu-0", "taints": [{"key": "broken", "effect": "NoExecute"}]}]}}
    tainted = rest.request("PATCH", f"{SLICES}/n1-gpus", body=taints, content_type=MERGE)
    assert tainted.status == 200, tainted.json()
    assert wait_for(evicted, timeout=15)
