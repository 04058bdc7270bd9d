"""The binder's volume recycler: the recycler pod built from the template and the flags' timeouts, the
volume offered again once the pod Succeeded, and Failed with upstream's messages otherwise."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from svc.controllers.options import parse_options
from svc.controllers.pvbinder import PersistentVolumeBinder
from svc.controllers.pvrecycler import Plugin, default_template, load_template
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
PV = "/api/v1/persistentvolumes/pv1"
PODS = "/api/v1/namespaces/default/pods"


def volume(source: Obj, size: str = "10Gi") -> Obj:
    spec = {
        "capacity": {"storage": size},
        "persistentVolumeReclaimPolicy": "Recycle",
        "claimRef": {"namespace": "team", "name": "gone", "uid": "old-uid"},
        **source,
    }
    annotations = {"pv.svc.io/bound-by-controller": "yes"}
    return {"metadata": {"name": "pv1", "annotations": annotations}, "spec": spec, "status": {"phase": "Released"}}


NFS = {"nfs": {"server": "nfs.example.com", "path": "/exports/a", "readOnly": False}}
HOST = {"hostPath": {"path": "/tmp/data"}}


def test_the_recycler_pod_scrubs_the_volume_with_a_deadline_by_size() -> None:
    pod = Plugin("nfs", 300, 30).pod_for(volume(NFS, "20Gi"))
    assert pod["metadata"] == {"name": "recycler-for-pv1", "namespace": "default"}
    assert pod["spec"]["activeDeadlineSeconds"] == 600
    assert pod["spec"]["volumes"] == [{"name": "vol", "nfs": {"server": "nfs.example.com", "path": "/exports/a"}}]
    assert pod["spec"]["restartPolicy"] == "Never"
    assert Plugin("hostPath", 60, 30).pod_for(volume(HOST, "1Gi"))["spec"]["activeDeadlineSeconds"] == 60


def binder(events: list[Obj]) -> tuple[PersistentVolumeBinder, Any]:
    context, client = make_context()
    client.objects[PV] = volume(HOST)
    client.watch_events = events
    controller = PersistentVolumeBinder(context, recycler_plugins=parse_options([]).recycler_plugins())
    return controller, client


def test_a_recycled_volume_is_available_again() -> None:
    controller, client = binder([{"type": "ADDED", "object": {"status": {"phase": "Pending"}}}])
    client.watch_events.append({"type": "MODIFIED", "object": {"status": {"phase": "Succeeded"}}})
    asyncio.run(controller.recycle_operation("pv1", controller.recycler.plugins[1]))
    verbs = [(verb, path) for verb, path, _ in client.calls]
    assert verbs[:4] == [("get", PV), ("create", PODS), ("watch", PODS), ("delete", f"{PODS}/recycler-for-pv1")]
    created = client.calls[1][2]
    assert created["spec"]["volumes"][0] == {"name": "vol", "hostPath": {"path": "/tmp/data"}}
    assert created["spec"]["activeDeadlineSeconds"] == 300
    unbound = client.calls[4][2]
    assert (
        "claimRef" not in unbound["spec"] and "pv.svc.io/bound-by-controller" not in unbound["metadata"]["annotations"]
    )
    assert client.calls[5][2]["status"]["phase"] == "Available"
    assert [event[2]["reason"] for event in client.events] == ["VolumeRecycled"]


def test_a_failed_recycler_pod_fails_the_volume_with_its_message() -> None:
    controller, client = binder([{"type": "MODIFIED", "object": {"status": {"phase": "Failed", "message": "boom"}}}])
    asyncio.run(controller.recycle_operation("pv1", controller.recycler.plugins[1]))
    status = client.calls[-1][2]["status"]
    assert (status["phase"], status["message"]) == ("Failed", "Recycle failed: failed to recycle volume: boom")
    assert [event[2]["reason"] for event in client.events] == ["VolumeFailedRecycle"]


def test_a_volume_of_another_kind_has_no_recycler() -> None:
    context, client = make_context()
    controller = PersistentVolumeBinder(context, recycler_plugins=parse_options([]).recycler_plugins())
    asyncio.run(controller._recycle(volume({"csi": {"driver": "d", "volumeHandle": "h"}})))
    assert client.calls[-1][2]["status"]["message"] == "No recycler plugin found for the volume!"


def test_a_template_file_must_have_a_volume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("spec:\n  volumes: [{name: scratch}]\n  containers: [{name: c, image: busybox}]\n")
    assert load_template(str(good))["spec"]["volumes"] == [{"name": "scratch"}]
    bad = tmp_path / "bad.yaml"
    bad.write_text("spec:\n  containers: [{name: c, image: busybox}]\n")
    with pytest.raises(SystemExit):
        parse_options([f"--pv-recycler-pod-template-filepath-hostpath={bad}"])
    assert "does not contain any volume(s)" in capsys.readouterr().err
    assert default_template()["spec"]["containers"][0]["volumeMounts"] == [{"name": "vol", "mountPath": "/scrub"}]
