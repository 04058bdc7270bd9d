"""The deployment controller's sync over seeded caches and a fake clock: the first replica set, the
surge step of a rollout, and the progress deadline passing without any sleep."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers import deployment_math as math
from svc.controllers.deployment import DeploymentController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
UID = "deployment-uid"


def deployment(image: str = "a", *, replicas: int = 4, status: Obj | None = None, deadline: int = 600) -> Obj:
    return {
        "metadata": {
            "name": "web",
            "namespace": "team",
            "uid": UID,
            "generation": 1,
            "resourceVersion": "7",
            "annotations": {"deployment.svc.io/revision": "1"},
        },
        "spec": {
            "replicas": replicas,
            "progressDeadlineSeconds": deadline,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": image}]},
            },
        },
        "status": status or {},
    }


def replica_set(image: str, replicas: int, available: int, revision: str, created: str) -> Obj:
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": image}]}}
    name = f"web-{math.template_hash(template, 0)}"
    return {
        "metadata": {
            "name": name,
            "namespace": "team",
            "uid": f"{name}-uid",
            "creationTimestamp": created,
            "labels": {"app": "web", "pod-template-hash": name[4:]},
            "annotations": {
                "deployment.svc.io/revision": revision,
                "deployment.svc.io/desired-replicas": "4",
                "deployment.svc.io/max-replicas": "5",
            },
            "ownerReferences": [{"kind": "Deployment", "name": "web", "uid": UID, "controller": True}],
        },
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template},
        "status": {"replicas": replicas, "readyReplicas": available, "availableReplicas": available},
    }


def sync(owner: Obj, sets: list[Obj], *, advance: float = 0.0) -> list[tuple[str, str, Obj | None]]:
    async def scenario() -> list[tuple[str, str, Obj | None]]:
        context, client = make_context()
        await context.clock.advance(advance)
        controller = DeploymentController(context)
        controller.deployments.replace([owner])
        controller.sets.replace(sets)
        await controller.sync("team/web")
        return client.calls

    return asyncio.run(scenario())


def test_a_new_deployment_gets_a_replica_set_of_its_size() -> None:
    calls = sync(deployment(), [])
    created = [body for verb, path, body in calls if verb == "create" and path.endswith("/replicasets")]
    assert len(created) == 1
    assert created[0]["spec"]["replicas"] == 4
    assert created[0]["metadata"]["ownerReferences"][0]["uid"] == UID


def test_a_template_change_grows_the_new_set_by_the_surge_only() -> None:
    old = replica_set("a", 4, 4, "1", "2026-01-01T00:00:00Z")
    new = replica_set("b", 0, 0, "2", "2026-01-02T00:00:00Z")
    calls = sync(deployment("b"), [old, new])
    scaled = {
        body["metadata"]["name"]: body["spec"]["replicas"] for verb, path, body in calls if "/replicasets/" in path
    }
    assert scaled == {new["metadata"]["name"]: 1}


def test_the_progress_deadline_passes_on_the_fake_clock() -> None:
    old = replica_set("a", 4, 4, "1", "2026-01-01T00:00:00Z")
    new = replica_set("b", 1, 0, "2", "2026-01-02T00:00:00Z")
    progressing = {
        "type": "Progressing",
        "status": "True",
        "reason": "ReplicaSetUpdated",
        "message": "progressing",
        "lastUpdateTime": math.rfc3339(1_000.0),
        "lastTransitionTime": math.rfc3339(1_000.0),
    }
    stuck = deployment("b", deadline=60)
    stuck["status"] = {**math.calculate_status(stuck, [old, new], new, 1_000.0), "conditions": [progressing]}

    def progress(advance: float) -> Obj | None:
        written = [body for verb, path, body in sync(stuck, [old, new], advance=advance) if path.endswith("/status")]
        return math.condition(written[-1]["status"], "Progressing") if written else None

    assert (progress(30) or {}).get("reason") != "ProgressDeadlineExceeded"
    exceeded = progress(61)
    assert exceeded is not None
    assert (exceeded["status"], exceeded["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert exceeded["message"] == f'ReplicaSet "{new["metadata"]["name"]}" has timed out progressing.'
