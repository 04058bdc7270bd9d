"""The node-lifecycle controller's passes over seeded caches with a fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers import node_health
from svc.controllers.deployment_math import rfc3339
from svc.controllers.nodelifecycle import NodeLifecycleController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
START = 1_000.0


def node(name: str, ready: str = "True", *, taints: list[Obj] | None = None, unschedulable: bool = False) -> Obj:
    condition = {"type": "Ready", "status": ready, "lastHeartbeatTime": rfc3339(START), "reason": "KubeletReady"}
    spec: Obj = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "metadata": {"name": name, "creationTimestamp": rfc3339(START)},
        "spec": spec,
        "status": {"conditions": [condition]},
    }


def lease(name: str, renewed: float) -> Obj:
    return {"metadata": {"name": name, "namespace": "svc-node-lease"}, "spec": {"renewTime": rfc3339(renewed)}}


def writes(client: Any, suffix: str = "") -> list[Obj]:
    return [body for verb, path, body in client.calls if verb == "update" and path.endswith(suffix)]


def setup(*names: str, **options: Any) -> tuple[NodeLifecycleController, Any]:
    context, client = make_context()
    controller = NodeLifecycleController(context, grace_period=50.0, **options)
    controller.nodes.replace([node(name) for name in names])
    controller.leases.replace([lease(name, START) for name in names])
    return controller, client


def test_a_renewed_lease_keeps_a_node_ready_past_the_grace_period() -> None:
    async def scenario() -> None:
        controller, client = setup("n1")
        await controller.monitor()
        await controller.context.clock.advance(40)
        controller.leases.replace([lease("n1", START + 40)])
        await controller.monitor()
        await controller.context.clock.advance(40)
        await controller.monitor()
        assert writes(client) == []

    asyncio.run(scenario())


def test_a_silent_node_goes_unknown_with_upstreams_reasons_after_the_grace_period() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2")
        await controller.monitor()
        await controller.context.clock.advance(51)
        controller.leases.replace([lease("n1", START + 51), lease("n2", START)])
        await controller.monitor()
        [update] = writes(client, "/nodes/n2/status")
        by_type = {c["type"]: c for c in update["status"]["conditions"]}
        assert by_type["Ready"] == {
            "type": "Ready",
            "status": "Unknown",
            "reason": "NodeStatusUnknown",
            "message": "Kubelet stopped posting node status.",
            "lastHeartbeatTime": rfc3339(START),
            "lastTransitionTime": rfc3339(START + 51),
        }
        assert by_type["MemoryPressure"]["reason"] == "NodeStatusNeverUpdated"
        assert by_type["MemoryPressure"]["message"] == "Kubelet never posted node status."
        assert set(by_type) == {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}

    asyncio.run(scenario())


def node_events(client: Any) -> list[tuple[str, str, str, str]]:
    return [
        (body["involvedObject"]["name"], body["type"], body["reason"], body["message"])
        for _, _, body in client.events
        if body["source"] == {"component": "node-controller"}
    ]


def test_nodes_are_registered_said_not_ready_and_removed_in_events() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2")
        await controller.monitor()
        assert node_events(client) == [
            (name, "Normal", "RegisteredNode", f"Node {name} event: Registered Node {name} in Controller")
            for name in ("n1", "n2")
        ]
        await controller.context.clock.advance(51)
        controller.leases.replace([lease("n1", START + 51), lease("n2", START)])
        await controller.monitor()
        assert node_events(client)[2:] == [("n2", "Normal", "NodeNotReady", "Node n2 status is now: NodeNotReady")]
        controller.nodes.replace([node("n1")])
        await controller.monitor()
        assert node_events(client)[3:] == [
            ("n2", "Normal", "RemovingNode", "Node n2 event: Removing Node n2 from Controller")
        ]

    asyncio.run(scenario())


def test_the_next_pass_taints_an_unknown_node_unreachable_noexecute_at_the_zone_rate() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2", "n3", eviction_rate=0.1)
        await controller.monitor()
        controller.nodes.replace([node("n1"), node("n2", "Unknown"), node("n3", "Unknown")])
        await controller.monitor()
        await controller.taint_pass()
        [first] = writes(client, "/nodes/n2")
        assert first["spec"]["taints"] == [
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": rfc3339(START)}
        ]
        await controller.context.clock.advance(5)
        await controller.taint_pass()
        assert writes(client, "/nodes/n3") == []
        await controller.context.clock.advance(5)
        await controller.taint_pass()
        assert len(writes(client, "/nodes/n3")) == 1

    asyncio.run(scenario())


def test_when_every_node_is_down_nothing_is_tainted_and_noexecute_taints_are_lifted() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2")
        await controller.monitor()
        tainted = node("n2", "Unknown", taints=[{**node_health.UNREACHABLE, "timeAdded": rfc3339(START)}])
        controller.nodes.replace([node("n1", "Unknown"), tainted])
        await controller.monitor()
        await controller.monitor()
        await controller.taint_pass()
        assert [body["metadata"]["name"] for body in writes(client)] == ["n2"]
        assert writes(client)[0]["spec"]["taints"] == []

    asyncio.run(scenario())


def test_a_ready_node_loses_its_noexecute_taints() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2")
        controller.nodes.replace([node("n1"), node("n2", taints=[{**node_health.NOT_READY, "timeAdded": "x"}])])
        await controller.monitor()
        assert writes(client, "/nodes/n2")[0]["spec"]["taints"] == []

    asyncio.run(scenario())


def test_noschedule_taints_follow_conditions_and_unschedulable_leaving_others_alone() -> None:
    async def scenario() -> None:
        controller, client = setup()
        own = {"key": "example.com/gpu", "effect": "NoSchedule"}
        stale = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
        controller.nodes.replace([node("n1", "Unknown", taints=[own, stale], unschedulable=True)])
        await controller.sync_no_schedule("n1")
        assert writes(client)[0]["spec"]["taints"] == [
            own,
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
        ]

    asyncio.run(scenario())


def test_pods_of_a_node_going_unknown_are_marked_not_ready() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2")
        ready = {"type": "Ready", "status": "True"}
        pod = {
            "metadata": {"name": "p", "namespace": "team"},
            "spec": {"nodeName": "n2"},
            "status": {"conditions": [ready]},
        }
        controller.pods.replace([pod])
        await controller.monitor()
        await controller.context.clock.advance(51)
        controller.leases.replace([lease("n1", START + 51), lease("n2", START)])
        await controller.monitor()
        [update] = writes(client, "/pods/p/status")
        assert update["status"]["conditions"] == [
            {"type": "Ready", "status": "False", "lastTransitionTime": rfc3339(START + 51)}
        ]

    asyncio.run(scenario())
