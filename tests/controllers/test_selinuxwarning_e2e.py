"""The selinux-warning controller (off by default, enabled by name) in the real daemon beside a real
API server: two pods sharing a context-mounted volume with different SELinux labels get events."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for
from tests.controllers.test_selinuxwarning_sync import pod

EVENTS = "/api/v1/namespaces/team/events"


def test_pods_sharing_a_volume_with_different_labels_get_conflict_events(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    assert rest.request("POST", "/api/v1/namespaces", body={"metadata": {"name": "team"}}).status == 201
    driver = {"metadata": {"name": "csi.example.com"}, "spec": {"seLinuxMount": True}}
    assert rest.request("POST", "/apis/storage.svc/v1/csidrivers", body=driver).status == 201
    volume = {
        "metadata": {"name": "pv1"},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOncePod"],
            "csi": {"driver": "csi.example.com", "volumeHandle": "vol-1"},
        },
    }
    assert rest.request("POST", "/api/v1/persistentvolumes", body=volume).status == 201
    claim = {
        "metadata": {"name": "data"},
        "spec": {
            "accessModes": ["ReadWriteOncePod"],
            "resources": {"requests": {"storage": "1Gi"}},
            "volumeName": "pv1",
        },
    }
    assert rest.request("POST", "/api/v1/namespaces/team/persistentvolumeclaims", body=claim).status == 201
    for name, level in (("a", "s0:c1,c2"), ("b", "s0:c3,c4")):
        made = rest.request("POST", "/api/v1/namespaces/team/pods", body=pod(name, level))
        assert made.status == 201, made.json()
    svc_controller_manager(svc_server, "--controllers=selinux-warning-controller")

    def conflicts() -> set[str]:
        items = rest.request("GET", EVENTS).json()["items"]
        return {e["involvedObject"]["name"] for e in items if e["reason"] == "SELinuxLabelConflict"}

    assert wait_for(lambda: conflicts() == {"a", "b"}, timeout=15), conflicts()
