"""The attach-detach controller in the real daemon; the test plays the CSI driver's external attacher."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

ATTACHMENTS = "/apis/storage.svc/v1/volumeattachments"
MERGE = "application/merge-patch+json"


def test_a_scheduled_pods_csi_volume_is_attached_reported_and_detached_when_the_pod_goes(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    annotations = {"volumes.svc.io/controller-managed-attach-detach": "true"}
    assert (
        rest.request("POST", "/api/v1/nodes", body={"metadata": {"name": "n1", "annotations": annotations}}).status
        == 201
    )
    spec = {
        "capacity": {"storage": "1Gi"},
        "accessModes": ["ReadWriteOnce"],
        "csi": {"driver": "csi.example.com", "volumeHandle": "vol-1"},
        "claimRef": {"namespace": "default", "name": "data"},
    }
    assert (
        rest.request("POST", "/api/v1/persistentvolumes", body={"metadata": {"name": "pv-1"}, "spec": spec}).status
        == 201
    )
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "volumeName": "pv-1"},
    }
    assert rest.request("POST", "/api/v1/namespaces/default/persistentvolumeclaims", body=claim).status == 201
    volumes = [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]
    pod = {
        "metadata": {"name": "p"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}], "volumes": volumes},
    }
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=pod).status == 201
    svc_controller_manager(svc_server, "--controllers=attachdetach")

    def attachments() -> list:
        return rest.request("GET", ATTACHMENTS).json()["items"]

    assert wait_for(lambda: len(attachments()) == 1, timeout=15), attachments()
    (attachment,) = attachments()
    assert attachment["spec"] == {
        "attacher": "csi.example.com",
        "nodeName": "n1",
        "source": {"persistentVolumeName": "pv-1"},
    }
    status_path = f"{ATTACHMENTS}/{attachment['metadata']['name']}/status"
    attached = rest.request("PATCH", status_path, body={"status": {"attached": True}}, content_type=MERGE)
    assert attached.status == 200, attached.json()

    def reported() -> list:
        return rest.request("GET", "/api/v1/nodes/n1").json().get("status", {}).get("volumesAttached") or []

    assert wait_for(lambda: reported() == [{"name": "svc.io/csi/csi.example.com^vol-1", "devicePath": ""}], timeout=15)
    assert rest.request("DELETE", "/api/v1/namespaces/default/pods/p?gracePeriodSeconds=0").status == 200
    assert wait_for(lambda: attachments() == [] and reported() == [], timeout=15), (attachments(), reported())
