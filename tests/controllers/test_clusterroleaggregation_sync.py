"""The clusterrole-aggregation controller's sync over seeded caches."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.clusterroleaggregation import ClusterRoleAggregationController
from tests.controllers.fakes import make_context

PATH = "/apis/rbac.authorization.svc/v1/clusterroles/monitoring"
READ_PODS = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
READ_NODES = {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}


def role(name: str, labels: dict[str, str], rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels, "resourceVersion": "7"}, "rules": rules}


def aggregating(rules: list[dict[str, Any]]) -> dict[str, Any]:
    selector = {"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}
    return {**role("monitoring", {}, rules), "aggregationRule": {"clusterRoleSelectors": [selector]}}


MATCHED = {"rbac.example.com/aggregate-to-monitoring": "true"}


def test_matching_roles_rules_are_gathered_by_role_name_each_once() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ClusterRoleAggregationController(context)
        controller.roles.replace(
            [
                aggregating([]),
                role("b-nodes", MATCHED, [READ_NODES, READ_PODS]),
                role("a-pods", MATCHED, [READ_PODS]),
                role("other", {}, [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]),
            ]
        )
        await controller.sync("monitoring")
        assert client.calls == [("update", PATH, {**aggregating([READ_PODS, READ_NODES])})]

    asyncio.run(scenario())


def test_nothing_is_written_when_the_rules_already_match_or_the_role_does_not_aggregate() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ClusterRoleAggregationController(context)
        controller.roles.replace([aggregating([READ_PODS]), role("a-pods", MATCHED, [READ_PODS])])
        for name in ("monitoring", "a-pods", "gone"):
            await controller.sync(name)
        assert client.calls == []

    asyncio.run(scenario())


def test_a_change_to_any_role_queues_every_aggregating_role() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = ClusterRoleAggregationController(context)
        controller.roles.replace([aggregating([]), role("a-pods", MATCHED, [READ_PODS])])
        assert await controller.queue.get() == "monitoring"
        assert len(controller.queue) == 0

    asyncio.run(scenario())
