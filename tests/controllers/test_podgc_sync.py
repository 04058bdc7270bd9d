"""The pod garbage collector's pass over seeded caches, on the fake clock."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.podgc import PodGarbageCollector
from tests.controllers.fakes import make_context, status_error

Obj = dict[str, Any]
FORCE = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0}


def pod(
    name: str, *, phase: str = "Running", node: str = "", created: str = "2026-01-01T00:00:00Z", **meta: Any
) -> Obj:
    metadata = {"name": name, "namespace": "team", "creationTimestamp": created, **meta}
    return {"metadata": metadata, "spec": {"nodeName": node} if node else {}, "status": {"phase": phase}}


def deleted(client: Any) -> list[str]:
    return [path.rsplit("/", 1)[1] for verb, path, body in client.calls if verb == "delete" and body == FORCE]


def test_terminated_pods_beyond_the_threshold_are_deleted_oldest_first() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context, terminated_threshold=1)
        controller.pods.replace(
            [
                pod("new", phase="Succeeded", created="2026-01-03T00:00:00Z"),
                pod("old", phase="Failed", created="2026-01-01T00:00:00Z"),
                pod("mid", phase="Succeeded", created="2026-01-02T00:00:00Z"),
                pod("running", created="2025-01-01T00:00:00Z"),
            ]
        )
        await controller.gc()
        assert sorted(deleted(client)) == ["mid", "old"]
        assert all(verb == "delete" for verb, _, _ in client.calls)

    asyncio.run(scenario())


def test_a_zero_threshold_keeps_every_terminated_pod() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context, terminated_threshold=0)
        controller.pods.replace([pod("done", phase="Succeeded")])
        await controller.gc()
        assert client.calls == []

    asyncio.run(scenario())


def test_pods_of_a_missing_node_go_after_the_quarantine_once_the_server_confirms() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context)
        controller.nodes.replace([{"metadata": {"name": "alive"}}])
        controller.pods.replace([pod("orphan", node="gone"), pod("fine", node="alive")])
        await controller.gc()
        await context.clock.advance(39)  # type: ignore[attr-defined]
        await controller.gc()
        assert client.calls == []
        await context.clock.advance(1)  # type: ignore[attr-defined]
        await controller.gc()
        assert [(verb, path) for verb, path, _ in client.calls] == [
            ("get", "/api/v1/nodes/gone"),
            ("patch:strategic", "/api/v1/namespaces/team/pods/orphan/status"),
            ("delete", "/api/v1/namespaces/team/pods/orphan"),
        ]
        status = client.calls[1][2]["status"]
        assert status["phase"] == "Failed"
        [condition] = status["conditions"]
        assert (condition["type"], condition["reason"], condition["message"]) == (
            "DisruptionTarget",
            "DeletionByPodGC",
            "PodGC: node no longer exists",
        )

    asyncio.run(scenario())


def test_a_node_the_server_still_has_or_that_comes_back_keeps_its_pods() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context)
        client.objects["/api/v1/nodes/slow"] = {"metadata": {"name": "slow"}}
        controller.pods.replace([pod("a", node="slow"), pod("b", node="back")])
        await controller.gc()
        controller.nodes.replace([{"metadata": {"name": "back"}}])
        await context.clock.advance(40)  # type: ignore[attr-defined]
        await controller.gc()
        assert [verb for verb, _, _ in client.calls] == ["get"]
        assert set(controller.missing_since) == {"slow"}

    asyncio.run(scenario())


def test_a_terminating_pod_never_scheduled_is_force_deleted() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context)
        controller.pods.replace([pod("stuck", phase="Pending", deletionTimestamp="2026-01-01T00:00:00Z")])
        await controller.gc()
        assert [verb for verb, _, _ in client.calls] == ["patch:strategic", "delete"]
        assert client.calls[0][2] == {"status": {"phase": "Failed"}}
        assert deleted(client) == ["stuck"]

    asyncio.run(scenario())


def test_a_pass_the_server_fails_is_logged_and_the_next_pass_runs_on_time() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context, terminated_threshold=1)
        controller.pods.replace(
            [pod("old", phase="Failed"), pod("new", phase="Failed", created="2026-01-02T00:00:00Z")]
        )
        client.failures["delete"] = status_error(500, "InternalError")
        running = asyncio.create_task(controller.run())
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert deleted(client) == ["old"]
        assert not running.done()
        client.failures.clear()
        await context.clock.advance(20)  # type: ignore[attr-defined]
        assert deleted(client) == ["old", "old"]
        running.cancel()

    asyncio.run(scenario())
