"""The attach-detach controller over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.client.workers import RequeueAfter
from svc.controllers.attachdetach import AttachDetachController, attachment_name
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
MANAGED = {"volumes.svc.io/controller-managed-attach-detach": "true"}
ATTACHMENTS = "/apis/storage.svc/v1/volumeattachments"
UNIQUE = "svc.io/csi/csi.example.com^vol-1"


def node(name: str, **status: Any) -> Obj:
    return {"metadata": {"name": name, "annotations": MANAGED}, "status": status}


def pod(name: str, node_name: str, claim: str = "data") -> Obj:
    volumes = [{"name": "d", "persistentVolumeClaim": {"claimName": claim}}]
    return {"metadata": {"name": name, "namespace": "ns"}, "spec": {"nodeName": node_name, "volumes": volumes}}


CLAIM = {"metadata": {"name": "data", "namespace": "ns"}, "spec": {"volumeName": "pv-1"}}
VOLUME = {
    "metadata": {"name": "pv-1"},
    "spec": {"accessModes": ["ReadWriteOnce"], "csi": {"driver": "csi.example.com", "volumeHandle": "vol-1"}},
}


def attachment(node_name: str, attached: bool = False) -> Obj:
    spec = {"attacher": "csi.example.com", "nodeName": node_name, "source": {"persistentVolumeName": "pv-1"}}
    name = attachment_name("vol-1", "csi.example.com", node_name)
    return {"metadata": {"name": name}, "spec": spec, "status": {"attached": attached}}


def controller(nodes, pods, attachments=(), drivers=()) -> tuple[AttachDetachController, Any]:  # type: ignore[no-untyped-def]
    context, client = make_context()
    adc = AttachDetachController(context)
    adc.nodes.replace(nodes)
    adc.pods.replace(pods)
    adc.claims.replace([CLAIM])
    adc.volumes.replace([VOLUME])
    adc.drivers.replace(list(drivers))
    adc.attachments.replace(list(attachments))
    return adc, client


def test_a_scheduled_pods_csi_volume_gets_a_volume_attachment() -> None:
    async def scenario() -> None:
        adc, client = controller([node("n1")], [pod("p", "n1")])
        await adc.sync("n1")
        assert client.calls == [
            (
                "create",
                ATTACHMENTS,
                {
                    "apiVersion": "storage.svc/v1",
                    "kind": "VolumeAttachment",
                    "metadata": {"name": attachment_name("vol-1", "csi.example.com", "n1")},
                    "spec": {
                        "attacher": "csi.example.com",
                        "nodeName": "n1",
                        "source": {"persistentVolumeName": "pv-1"},
                    },
                },
            )
        ]

    asyncio.run(scenario())


def test_an_attached_volume_is_listed_on_the_node() -> None:
    async def scenario() -> None:
        adc, client = controller([node("n1")], [pod("p", "n1")], [attachment("n1", attached=True)])
        await adc.sync("n1")
        assert client.calls == [
            (
                "patch:merge",
                "/api/v1/nodes/n1/status",
                {"status": {"volumesAttached": [{"name": UNIQUE, "devicePath": ""}]}},
            )
        ]

    asyncio.run(scenario())


def test_unmanaged_nodes_and_drivers_without_attach_are_left_alone() -> None:
    async def scenario() -> None:
        unmanaged = {"metadata": {"name": "n1"}, "status": {}}
        adc, client = controller([unmanaged], [pod("p", "n1")])
        await adc.sync("n1")
        assert client.calls == []
        driver = {"metadata": {"name": "csi.example.com"}, "spec": {"attachRequired": False}}
        adc, client = controller([node("n1")], [pod("p", "n1")], drivers=[driver])
        await adc.sync("n1")
        assert client.calls == []

    asyncio.run(scenario())


def test_a_volume_no_pod_needs_is_detached_once_the_node_stops_using_it() -> None:
    async def scenario() -> None:
        busy = node("n1", volumesInUse=[UNIQUE])
        adc, client = controller([busy], [], [attachment("n1", attached=True)])
        with pytest.raises(RequeueAfter):
            await adc.sync("n1")
        assert "delete" not in [verb for verb, _, _ in client.calls], "still in use: kept (and still reported)"
        adc, client = controller([node("n1")], [], [attachment("n1", attached=True)])
        await adc.sync("n1")
        assert client.calls[0] == ("delete", f"{ATTACHMENTS}/{attachment_name('vol-1', 'csi.example.com', 'n1')}", None)

    asyncio.run(scenario())


def test_a_read_write_once_volume_attached_elsewhere_is_a_multi_attach_error() -> None:
    async def scenario() -> None:
        adc, client = controller(
            [node("n1"), node("n2")], [pod("old", "n1"), pod("new", "n2")], [attachment("n1", True)]
        )
        await adc.sync("n2")
        assert [verb for verb, _, _ in client.calls] == []
        (event,) = [body for _, _, body in client.events]
        assert event["reason"] == "FailedAttachVolume"
        assert event["message"] == 'Multi-Attach error for volume "pv-1" Volume is already used by pod(s) old'

    asyncio.run(scenario())
