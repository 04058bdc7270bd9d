"""The taint-eviction controller over seeded caches with a fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.tainteviction import TaintEvictionController, toleration_limit
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}
POD_PATH = "/api/v1/namespaces/team/pods/p"


def node(taints: list[Obj]) -> Obj:
    return {"metadata": {"name": "n1"}, "spec": {"taints": taints}}


def pod(tolerations: list[Obj]) -> Obj:
    spec = {"nodeName": "n1", "tolerations": tolerations}
    return {"metadata": {"name": "p", "namespace": "team"}, "spec": spec, "status": {"phase": "Running"}}


def tolerate(seconds: int | None) -> Obj:
    toleration: Obj = {"key": UNREACHABLE["key"], "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        toleration["tolerationSeconds"] = seconds
    return toleration


def test_toleration_limits_follow_upstreams_rules() -> None:
    assert toleration_limit([UNREACHABLE], []) == 0.0
    assert toleration_limit([UNREACHABLE], [tolerate(None)]) is None
    assert toleration_limit([UNREACHABLE], [tolerate(30), tolerate(5)]) == 30.0
    other = {"key": "example.com/drain", "effect": "NoExecute"}
    assert (
        toleration_limit([UNREACHABLE, other], [tolerate(30), {"operator": "Exists", "tolerationSeconds": 10}]) == 10.0
    )
    assert toleration_limit([UNREACHABLE], [tolerate(-5)]) == 0.0


def test_a_pod_tolerating_for_a_while_is_deleted_after_its_toleration_with_the_disruption_condition() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TaintEvictionController(context)
        controller.pods.replace([pod([tolerate(30)])])
        controller.nodes.replace([node([UNREACHABLE])])
        await controller.sync("team/p")
        assert client.calls == []
        await context.clock.advance(30)
        assert await controller.queue.get() == "team/p"
        await controller.sync("team/p")
        (verb, path, body), delete = client.calls
        assert (verb, path) == ("update", f"{POD_PATH}/status")
        assert body["status"]["conditions"] == [
            {
                "type": "DisruptionTarget",
                "status": "True",
                "reason": "DeletionByTaintManager",
                "message": "Taint manager: deleting due to NoExecute taint",
                "lastTransitionTime": "1970-01-01T00:17:10Z",
            }
        ]
        assert delete == ("delete", POD_PATH, None)

    asyncio.run(scenario())


def test_an_untolerated_taint_deletes_at_once_and_a_lifted_taint_cancels() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TaintEvictionController(context)
        controller.pods.replace([pod([tolerate(30)])])
        controller.nodes.replace([node([UNREACHABLE])])
        controller.nodes.replace([node([])])
        await context.clock.advance(31)
        await controller.sync("team/p")
        assert client.calls == []
        controller.pods.replace([pod([])])
        controller.nodes.replace([node([UNREACHABLE])])
        await controller.sync("team/p")
        assert [verb for verb, _path, _body in client.calls] == ["update", "delete"]

    asyncio.run(scenario())


def evictions(client: Any) -> list[tuple[str, str, str]]:
    return [
        (body["involvedObject"]["name"], body["type"], body["message"])
        for _, _, body in client.events
        if body["reason"] == "TaintManagerEviction" and body["source"] == {"component": "taint-eviction-controller"}
    ]


def test_a_cancelled_deletion_and_a_carried_out_one_are_events_on_the_pod() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TaintEvictionController(context)
        controller.pods.replace([pod([tolerate(30)])])
        controller.nodes.replace([node([UNREACHABLE])])
        controller.nodes.replace([node([])])
        await controller.sync(await controller.queue.get())
        assert evictions(client) == [("p", "Normal", "Cancelling deletion of Pod team/p")]
        controller.nodes.replace([node([UNREACHABLE])])
        await context.clock.advance(30)
        await controller.sync("team/p")
        assert evictions(client)[1:] == [("p", "Normal", "Marking for deletion Pod team/p")]
        assert [verb for verb, _path, _body in client.calls] == ["update", "delete"]

    asyncio.run(scenario())


def test_updates_that_leave_taints_tolerations_and_node_alone_do_not_touch_a_scheduled_deletion() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TaintEvictionController(context)
        controller.pods.replace([pod([])])
        controller.nodes.replace([node([UNREACHABLE])])
        heartbeat = {**node([UNREACHABLE]), "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
        controller.nodes.replace([heartbeat])
        controller.pods.replace([{**pod([]), "status": {"phase": "Running", "podIP": "10.0.0.9"}}])
        await controller.sync(await controller.queue.get())
        assert evictions(client) == [("p", "Normal", "Marking for deletion Pod team/p")]

    asyncio.run(scenario())


def test_a_deleted_node_keeps_the_deletions_it_scheduled() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TaintEvictionController(context)
        controller.pods.replace([pod([tolerate(30)])])
        controller.nodes.replace([node([UNREACHABLE])])
        controller.nodes.replace([])
        controller.pods.replace([pod([tolerate(60)])])
        await context.clock.advance(30)
        await controller.sync("team/p")
        assert evictions(client) == [("p", "Normal", "Marking for deletion Pod team/p")]

    asyncio.run(scenario())


def test_a_pod_tolerating_forever_is_kept() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TaintEvictionController(context)
        controller.pods.replace([pod([tolerate(None)])])
        controller.nodes.replace([node([UNREACHABLE])])
        await context.clock.advance(3600)
        await controller.sync("team/p")
        assert client.calls == [] and controller.scheduled == {}

    asyncio.run(scenario())
