"""The endpointslice and endpoints controllers' syncs over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.client.workers import RequeueAfter
from svc.controllers.endpoints import EndpointsController
from svc.controllers.endpointslice import MANAGER, EndpointSliceController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]


def service(**spec: Any) -> Obj:
    spec = {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "web"}], **spec}
    return {
        "metadata": {"name": "web", "namespace": "team", "uid": "svc-uid", "labels": {"tier": "front"}},
        "spec": spec,
    }


def pod(name: str, ip: str, *, ready: bool = True, deleting: bool = False, port_name: str = "web") -> Obj:
    metadata: Obj = {"name": name, "namespace": "team", "uid": f"{name}-uid", "labels": {"app": "web"}}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {
        "metadata": metadata,
        "spec": {
            "nodeName": "node-1",
            "containers": [{"name": "c", "ports": [{"name": port_name, "containerPort": 8080}]}],
        },
        "status": {"podIP": ip, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def test_a_slice_lists_ready_and_not_ready_pods_with_ports_resolved_by_name() -> None:
    async def scenario() -> None:
        context, client = make_context("kubernetes")
        controller = EndpointSliceController(context)
        controller.services.replace([service()])
        controller.pods.replace([pod("b", "10.0.0.2", ready=False), pod("a", "10.0.0.1"), pod("c", "")])
        await controller.sync("team/web")
        [(verb, path, body)] = client.calls
        assert (verb, path) == ("create", "/apis/discovery.k8s.io/v1/namespaces/team/endpointslices")
        assert body["metadata"]["generateName"] == "web-"
        assert body["metadata"]["labels"] == {
            "tier": "front",
            "kubernetes.io/service-name": "web",
            "endpointslice.kubernetes.io/managed-by": MANAGER,
        }
        assert body["metadata"]["ownerReferences"] == [
            {
                "apiVersion": "v1",
                "kind": "Service",
                "name": "web",
                "uid": "svc-uid",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        assert body["addressType"] == "IPv4"
        assert body["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
        assert [(e["addresses"], e["conditions"]["ready"]) for e in body["endpoints"]] == [
            (["10.0.0.1"], True),
            (["10.0.0.2"], False),
        ]
        assert body["endpoints"][0]["targetRef"] == {"kind": "Pod", "namespace": "team", "name": "a", "uid": "a-uid"}
        assert body["endpoints"][0]["nodeName"] == "node-1"

    asyncio.run(scenario())


def test_a_terminating_pod_is_serving_but_not_ready() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = EndpointSliceController(context)
        controller.pods.replace([pod("a", "10.0.0.1", deleting=True)])
        [desired] = controller.desired(service())
        assert desired["endpoints"][0]["conditions"] == {"ready": False, "serving": True, "terminating": True}

    asyncio.run(scenario())


def test_pods_resolving_ports_differently_get_separate_slices_and_chunks_hold_max_endpoints() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = EndpointSliceController(context, max_endpoints=2)
        pods = [pod(f"a{i}", f"10.0.0.{i}") for i in range(3)] + [pod("other", "10.0.1.1", port_name="x")]
        controller.pods.replace(pods)
        slices = controller.desired(service())
        assert [(len(s["endpoints"]), s["ports"]) for s in slices] == [
            (2, [{"name": "http", "port": 8080, "protocol": "TCP"}]),
            (1, [{"name": "http", "port": 8080, "protocol": "TCP"}]),
            (1, []),
        ]

    asyncio.run(scenario())


def test_a_matching_slice_is_left_alone_a_stale_one_updated_and_extras_deleted() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EndpointSliceController(context)
        controller.services.replace([service()])
        controller.pods.replace([pod("a", "10.0.0.1")])
        [wanted] = controller.desired(service())
        first = {**wanted, "metadata": {**wanted["metadata"], "name": "web-1", "namespace": "team"}}
        controller.slices.replace([first])
        await controller.sync("team/web")
        assert client.calls == []
        extra = {**first, "metadata": {**first["metadata"], "name": "web-2"}}
        controller.slices.replace([{**first, "endpoints": []}, extra])
        await controller.sync("team/web")
        assert [(verb, path) for verb, path, _ in client.calls] == [
            ("update", "/apis/discovery.svc/v1/namespaces/team/endpointslices/web-1"),
            ("delete", "/apis/discovery.svc/v1/namespaces/team/endpointslices/web-2"),
        ]
        assert client.calls[0][2]["endpoints"] == wanted["endpoints"]

    asyncio.run(scenario())


def test_a_service_without_selector_gets_no_slice_and_no_pods_gets_a_placeholder() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EndpointSliceController(context)
        controller.services.replace([service(selector=None)])
        await controller.sync("team/web")
        await controller.sync("team/gone")
        assert client.calls == []
        controller.services.replace([service()])
        await controller.sync("team/web")
        [(_, _, body)] = client.calls
        assert (body["endpoints"], body["ports"]) == ([], [])

    asyncio.run(scenario())


def test_a_pod_change_queues_the_services_selecting_it() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = EndpointSliceController(context)
        controller.services.replace([service()])
        await controller.queue.get()
        controller.queue.done("team/web")
        controller.pods.replace([pod("a", "10.0.0.1")])
        assert await controller.queue.get() == "team/web"

    asyncio.run(scenario())


def test_endpoints_split_ready_and_not_ready_and_leave_out_terminating_pods() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EndpointsController(context)
        controller.services.replace([service(clusterIP="None")])
        controller.pods.replace(
            [pod("a", "10.0.0.1"), pod("b", "10.0.0.2", ready=False), pod("c", "10.0.0.3", deleting=True)]
        )
        await controller.sync("team/web")
        [(verb, path, body)] = client.calls
        assert (verb, path) == ("create", "/api/v1/namespaces/team/endpoints")
        assert body["metadata"] == {"name": "web", "labels": {"tier": "front", "service.svc.io/headless": ""}}
        [subset] = body["subsets"]
        assert [a["ip"] for a in subset["addresses"]] == ["10.0.0.1"]
        assert [a["ip"] for a in subset["notReadyAddresses"]] == ["10.0.0.2"]
        assert subset["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]

    asyncio.run(scenario())


def test_endpoints_of_a_deleted_service_are_deleted_and_unchanged_ones_left_alone() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EndpointsController(context)
        controller.services.replace([service()])
        current = {
            **controller.desired(service()),
            "metadata": {"name": "web", "namespace": "team", "labels": {"tier": "front"}},
        }
        controller.endpoints.replace([current])
        await controller.sync("team/web")
        assert client.calls == []
        controller.services.replace([])
        await controller.sync("team/web")
        assert client.calls == [("delete", "/api/v1/namespaces/team/endpoints/web", None)]

    asyncio.run(scenario())


def test_a_sync_waits_until_the_cache_shows_the_slice_it_created() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = EndpointSliceController(context)
        controller.services.replace([service()])

        async def create(path: str, body: Obj) -> Obj:
            client.calls.append(("create", path, body))
            return {
                **body,
                "metadata": {**body["metadata"], "name": "web-x", "namespace": "team", "resourceVersion": "7"},
            }

        client.create = create  # type: ignore[method-assign]
        await controller.sync("team/web")
        with pytest.raises(RequeueAfter):
            await controller.sync("team/web")
        [(_, _, created)] = client.calls
        controller.slices.replace(
            [
                {
                    **created,
                    "metadata": {**created["metadata"], "name": "web-x", "namespace": "team", "resourceVersion": "7"},
                }
            ]
        )
        await controller.sync("team/web")
        assert len(client.calls) == 1

    asyncio.run(scenario())
