"""The statefulset and daemonset controllers' syncs over seeded caches and a fake clock: ordered
creation waits for the previous pod to be available for `minReadySeconds` (time advanced, never
slept); a daemon pod goes to every node it may run on."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers import deployment_math as math
from svc.controllers.daemonset import DaemonSetController
from svc.controllers.statefulset import StatefulSetController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
TEMPLATE = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c", "image": "db"}]}}


def stateful_set(*, min_ready: int = 0) -> Obj:
    return {
        "metadata": {"name": "db", "namespace": "team", "uid": "sts-uid", "generation": 1},
        "spec": {
            "replicas": 3,
            "minReadySeconds": min_ready,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": TEMPLATE,
        },
        "status": {},
    }


def ready_pod(name: str, since: float) -> Obj:
    ready = {"type": "Ready", "status": "True", "lastTransitionTime": math.rfc3339(since)}
    return {
        "metadata": {
            "name": name,
            "namespace": "team",
            "uid": f"{name}-uid",
            "labels": {"app": "db"},
            "ownerReferences": [{"kind": "StatefulSet", "name": "db", "uid": "sts-uid", "controller": True}],
        },
        "spec": {"nodeName": "n1"},
        "status": {"phase": "Running", "conditions": [ready]},
    }


def created_pods(calls: list[tuple[str, str, Obj | None]]) -> list[str]:
    return [body["metadata"]["name"] for verb, path, body in calls if verb == "create" and path.endswith("/pods")]


def sync_stateful(owner: Obj, pods: list[Obj], *, advance: float = 0.0) -> list[str]:
    async def scenario() -> list[str]:
        context, client = make_context()
        await context.clock.advance(advance)
        controller = StatefulSetController(context)
        controller.sets.replace([owner])
        controller.pods.replace(pods)
        await controller.sync("team/db")
        return created_pods(client.calls)

    return asyncio.run(scenario())


def test_ordered_creation_starts_with_the_first_ordinal_only() -> None:
    assert sync_stateful(stateful_set(), []) == ["db-0"]


def test_the_next_ordinal_waits_until_the_previous_is_available_for_min_ready_seconds() -> None:
    owner = stateful_set(min_ready=30)
    pods = [ready_pod("db-0", since=1_000.0)]  # the fake clock starts at 1,000 s
    assert sync_stateful(owner, pods, advance=10) == []
    assert sync_stateful(owner, pods, advance=31) == ["db-1"]


def node(name: str, taints: list[Obj] | None = None) -> Obj:
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"taints": taints or []},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }


def test_a_daemon_pod_goes_to_every_node_whose_taints_it_tolerates() -> None:
    daemon = {
        "metadata": {"name": "agent", "namespace": "team", "uid": "ds-uid", "generation": 1},
        "spec": {"selector": {"matchLabels": {"app": "db"}}, "template": TEMPLATE},
        "status": {},
    }
    tainted = node("n3", [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])

    async def scenario() -> list[Obj]:
        context, client = make_context()
        controller = DaemonSetController(context)
        controller.sets.replace([daemon])
        controller.nodes.replace([node("n1"), node("n2"), tainted])
        await controller.sync("team/agent")
        return [body for verb, path, body in client.calls if verb == "create" and path.endswith("/pods")]

    created = asyncio.run(scenario())
    pinned = sorted(
        pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][
            0
        ]["matchFields"][0]["values"][0]
        for pod in created
    )
    assert pinned == ["n1", "n2"]


def test_a_daemon_pod_observed_while_the_sync_records_history_is_not_created_again() -> None:
    """The sync reads its pods, then awaits the ControllerRevision it records; the add of the pod for
    n2, created earlier, arrives meanwhile and meets the expectation. The sync must keep to the
    expectations it found at its start (as upstream), or it creates n2's pod a second time."""
    daemon = {
        "metadata": {"name": "agent", "namespace": "team", "uid": "ds-uid", "generation": 1},
        "spec": {"selector": {"matchLabels": {"app": "db"}}, "template": TEMPLATE},
        "status": {},
    }

    def daemon_pod(name: str, node_name: str) -> Obj:
        reference = {"kind": "DaemonSet", "name": "agent", "uid": "ds-uid", "controller": True}
        metadata = {"name": name, "namespace": "team", "uid": f"{name}-uid", "labels": {"app": "db"}}
        return {
            "metadata": {**metadata, "ownerReferences": [reference]},
            "spec": {"nodeName": node_name},
            "status": {"phase": "Running"},
        }

    async def scenario() -> list[Obj]:
        context, client = make_context()
        controller = DaemonSetController(context)
        controller.sets.replace([daemon])
        controller.nodes.replace([node("n1"), node("n2")])
        controller.pods.replace([daemon_pod("agent-a", "n1")])
        controller.expectations.expect("team/agent", adds=1)
        created = client.create

        async def create(path: str, body: Obj) -> Obj:
            if path.endswith("/controllerrevisions"):  # the watch brings n2's pod meanwhile
                controller.pods.replace([daemon_pod("agent-a", "n1"), daemon_pod("agent-b", "n2")])
            return await created(path, body)

        client.create = create
        await controller.sync("team/agent")
        return [body for verb, path, body in client.calls if verb == "create" and path.endswith("/pods")]

    assert asyncio.run(scenario()) == []
