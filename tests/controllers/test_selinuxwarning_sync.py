"""The selinux-warning controller over seeded caches: conflicts between pods sharing a volume."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.selinuxwarning import SELinuxWarningController, file_label, labels_conflict
from tests.controllers.fakes import make_context

Obj = dict[str, Any]


def pod(name: str, level: str = "", *, namespace: str = "team", policy: str = "", claim: str = "data") -> Obj:
    security: Obj = {}
    if level:
        security["seLinuxOptions"] = {"level": level}
    if policy:
        security["seLinuxChangePolicy"] = policy
    container = {"name": "c", "image": "busybox", "volumeMounts": [{"name": "v", "mountPath": "/d"}]}
    volumes = [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]
    spec = {"securityContext": security, "containers": [container], "volumes": volumes}
    return {"metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"}, "spec": spec, "status": {}}


def controller(modes: list[str], *, selinux_mount: bool = True) -> tuple[SELinuxWarningController, Any]:
    context, client = make_context()
    swc = SELinuxWarningController(context)
    swc.drivers.replace([{"metadata": {"name": "csi.example.com"}, "spec": {"seLinuxMount": selinux_mount}}])
    csi = {"driver": "csi.example.com", "volumeHandle": "vol-1"}
    swc.volumes.replace([{"metadata": {"name": "pv1"}, "spec": {"csi": csi, "accessModes": modes}}])
    claims = [
        {"metadata": {"name": "data", "namespace": ns}, "spec": {"volumeName": "pv1"}} for ns in ("team", "other")
    ]
    swc.claims.replace(claims)
    return swc, client


def sync_all(swc: SELinuxWarningController, *pods: Obj) -> None:
    swc.pods.replace(list(pods))

    async def run() -> None:
        for each in pods:
            await swc.sync(f"{each['metadata']['namespace']}/{each['metadata']['name']}")

    asyncio.run(run())


def test_labels_keep_only_the_given_parts_and_empty_parts_do_not_conflict() -> None:
    assert file_label({"level": "s0:c1,c2"}) == ":::s0:c1,c2"
    assert file_label({}) == ""
    assert not labels_conflict("system_u:system_r:container_t:s0:c1,c2", ":::s0:c1,c2")
    assert labels_conflict("system_u:system_r:container_t:s0:c1,c2", ":::s0:c98,c99")


def test_two_pods_on_a_context_mounted_volume_with_different_labels_both_get_an_event() -> None:
    swc, client = controller(["ReadWriteOncePod"])
    sync_all(swc, pod("a", "s0:c1,c2"), pod("b", "s0:c3,c4"))
    events = {(e[2]["involvedObject"]["name"], e[2]["reason"]): e[2]["message"] for e in client.events}
    assert set(events) == {("a", "SELinuxLabelConflict"), ("b", "SELinuxLabelConflict")}
    assert events[("b", "SELinuxLabelConflict")] == (
        'SELinux label ":::s0:c3,c4" conflicts with pod a that uses the same volume as this pod with SELinux label '
        '":::s0:c1,c2". If both pods land on the same node, only one of them may access the volume.'
    )
    assert client.events[0][2]["source"]["component"] == "selinux_warning"


def test_a_pod_in_another_namespace_is_not_named_and_policies_conflict_too() -> None:
    swc, client = controller(["ReadWriteOncePod"])
    sync_all(swc, pod("a", "s0:c1,c2"), pod("b", "s0:c1,c2", namespace="other", policy="Recursive"))
    messages = [e[2]["message"] for e in client.events if e[2]["involvedObject"]["name"] == "b"]
    assert messages == [
        'SELinuxChangePolicy"Recursive" conflicts with another pod that uses the same volume as this pod with a '
        "different SELinuxChangePolicy. If both pods land on the same node, only one of them may access the volume."
    ]


def test_a_volume_not_mounted_with_a_context_compares_no_label() -> None:
    swc, client = controller(["ReadWriteOnce"])
    sync_all(swc, pod("a", "s0:c1,c2"), pod("b", "s0:c3,c4"))
    assert client.events == []


def test_a_driver_without_context_mounts_still_relabels_so_labels_conflict() -> None:
    swc, client = controller(["ReadWriteOncePod"], selinux_mount=False)
    sync_all(swc, pod("a", "s0:c1,c2"), pod("b", "s0:c3,c4"))
    assert {e[2]["reason"] for e in client.events} == {"SELinuxLabelConflict"}


def test_a_finished_pod_leaves_the_comparison() -> None:
    swc, client = controller(["ReadWriteOncePod"])
    done = pod("a", "s0:c1,c2") | {"status": {"phase": "Succeeded"}}
    sync_all(swc, done, pod("b", "s0:c3,c4"))
    assert client.events == []
