"""The ttl controller over seeded caches."""

from __future__ import annotations

import asyncio

from svc.controllers.ttl import TTLController
from tests.controllers.fakes import make_context


def nodes(count: int, ttl: str | None = None) -> list[dict]:
    annotations = {"node.alpha.svc.io/ttl": ttl} if ttl is not None else {}
    return [{"metadata": {"name": f"n{index}", "annotations": annotations}} for index in range(count)]


def test_a_small_cluster_annotates_zero_and_leaves_correct_nodes_alone() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = TTLController(context)
        controller.nodes.replace(
            [*nodes(2), {"metadata": {"name": "ok", "annotations": {"node.alpha.svc.io/ttl": "0"}}}]
        )
        for name in ("n0", "n1", "ok", "gone"):
            await controller.sync(name)
        assert client.calls == [
            ("patch:merge", f"/api/v1/nodes/{name}", {"metadata": {"annotations": {"node.alpha.svc.io/ttl": "0"}}})
            for name in ("n0", "n1")
        ]

    asyncio.run(scenario())


def test_the_ttl_steps_up_past_100_nodes_and_back_down_only_under_90() -> None:
    context, _ = make_context()
    controller = TTLController(context)
    controller.nodes.replace(nodes(101))
    assert controller.desired_ttl == 15
    controller.nodes.replace(nodes(95))
    assert controller.desired_ttl == 15
    controller.nodes.replace(nodes(89))
    assert controller.desired_ttl == 0


def test_the_annotation_follows_the_profile() -> None:
    context, _ = make_context("kubernetes")
    assert TTLController(context).annotation == "node.alpha.kubernetes.io/ttl"
