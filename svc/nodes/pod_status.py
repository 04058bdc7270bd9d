"""The status a simulated kubelet reports for a pod: started, running, and how it ends.

Containers "start" at once and are ready (readiness probes are not run). Pods whose restart policy
is `Always` run until deleted; pods with `Never` or `OnFailure` are batch work and exit after the
configured run time with code 0. The annotation `simulator.svc.io/exit-code` sets the exit code of
any pod (an `Always` pod then restarts after each run, as a crash loop does). When the containers exit,
each one's restart policy decides (its own `restartPolicy` and `restartPolicyRules` if it has them, else
the pod's): a restarted container's count goes up and it runs again, the others stay terminated; the pod
ends Succeeded or Failed once no container runs.
"""

from __future__ import annotations

import hashlib
from typing import Any

from svc.nodes.node_objects import rfc3339

Obj = dict[str, Any]
EXIT_CODE_ANNOTATION = "simulator.svc.io/exit-code"
READY_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def planned_exit_code(pod: Obj) -> int | None:
    """The exit code the pod's containers end with, or None when they run until deleted."""
    annotations = pod["metadata"].get("annotations") or {}
    if EXIT_CODE_ANNOTATION in annotations:
        try:
            return int(annotations[EXIT_CODE_ANNOTATION])
        except ValueError:
            return 1
    restart_policy = (pod.get("spec") or {}).get("restartPolicy") or "Always"
    return 0 if restart_policy != "Always" else None


def _rule_matches(rule: Any, exit_code: int) -> bool:
    exit_codes = rule.get("exitCodes") if isinstance(rule, dict) else None
    if not isinstance(exit_codes, dict):
        return False
    listed = exit_code in (exit_codes.get("values") or [])
    return listed if exit_codes.get("operator") == "In" else exit_codes.get("operator") == "NotIn" and not listed


def container_restarts(container: Obj, pod_policy: str, exit_code: int) -> bool:
    """Whether the kubelet restarts a container that exited with `exit_code` (upstream's
    `ContainerShouldRestart`): the first of its own `restartPolicyRules` that matches decides, else its own
    `restartPolicy`, else the pod's. (A `RestartAllContainers` rule restarts only this container here.)"""
    policy = container.get("restartPolicy")
    if policy is None:
        policy = pod_policy
    else:
        for rule in container.get("restartPolicyRules") or []:
            if _rule_matches(rule, exit_code):
                return rule.get("action") in ("Restart", "RestartAllContainers")
    return policy == "Always" or (policy == "OnFailure" and exit_code != 0)


def _conditions(pod: Obj, ready: bool, reason: str, now: str) -> list[Obj]:
    """The pod's conditions with the kubelet's four set, keeping PodScheduled and others as they are
    (a condition's transition time moves only when its status changes)."""
    current = {c.get("type"): c for c in (pod.get("status") or {}).get("conditions") or []}
    wanted = {
        "PodReadyToStartContainers": ready,
        "Initialized": True,
        "ContainersReady": ready,
        "Ready": ready,
    }
    conditions = [c for kind, c in current.items() if kind not in wanted]
    for kind, truth in wanted.items():
        status = "True" if truth else "False"
        old = current.get(kind)
        condition: Obj = {"type": kind, "status": status, "lastProbeTime": None}
        condition["lastTransitionTime"] = old["lastTransitionTime"] if old and old.get("status") == status else now
        if not truth and kind in ("ContainersReady", "Ready"):
            condition["reason"] = reason
        conditions.append(condition)
    return conditions


def container_resources(container: Obj) -> Obj:
    """The resources a running container is reported with: what it was given (a resize takes effect
    at once here). A kubelet that reports them tells the API server it supports in-place resize."""
    resources = container.get("resources") or {}
    return {kind: dict(resources[kind]) for kind in ("requests", "limits") if resources.get(kind)}


def _container(container: Obj, pod_uid: str, state: Obj, *, ready: bool, restarts: int, last: Obj) -> Obj:
    image = container.get("image") or ""
    reported: Obj = {"resources": container_resources(container)} if "running" in state else {}
    return {
        "name": container["name"],
        "state": state,
        "lastState": last,
        "ready": ready,
        "restartCount": restarts,
        "image": image,
        "imageID": f"{image.split('@')[0]}@sha256:{_digest(image)}",
        "containerID": f"simulated://{_digest(pod_uid + container['name'])[:64]}",
        "started": "running" in state,
        **reported,
    }


def _init_statuses(spec: Obj, uid: str, started: str) -> list[Obj]:
    done = {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": started, "finishedAt": started}}
    return [_container(c, uid, done, ready=True, restarts=0, last={}) for c in spec.get("initContainers") or []]


def running_status(
    pod: Obj, host_ip: str, pod_ip: str, wall: float, *, restarts: int = 0, last: Obj | None = None
) -> Obj:
    """The status of a pod whose containers all run and are ready."""
    spec = pod.get("spec") or {}
    uid = pod["metadata"].get("uid", "")
    now = rfc3339(wall)
    started = (pod.get("status") or {}).get("startTime") or now
    running = {"running": {"startedAt": now}}
    return {
        **(pod.get("status") or {}),
        "phase": "Running",
        "conditions": _conditions(pod, True, "", now),
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": started,
        "initContainerStatuses": _init_statuses(spec, uid, started),
        "containerStatuses": [
            _container(c, uid, running, ready=True, restarts=restarts, last=last or {})
            for c in spec.get("containers") or []
        ],
    }


def resized_status(pod: Obj) -> Obj | None:
    """The status once a resize is done: running containers report their new resources; None when
    every one already reports what its spec gives it."""
    status = pod.get("status") or {}
    given = {c["name"]: container_resources(c) for c in (pod.get("spec") or {}).get("containers") or []}
    statuses = status.get("containerStatuses") or []
    updated = [
        {**c, "resources": given[c["name"]]}
        if "running" in (c.get("state") or {}) and c.get("name") in given and c.get("resources") != given[c["name"]]
        else c
        for c in statuses
    ]
    if updated == statuses:
        return None
    return {**status, "containerStatuses": updated}


def ended_status(pod: Obj, exit_code: int, wall: float) -> Obj:
    """The status once the running containers exited: each restarts or stays terminated as its restart
    policy says (`container_restarts`); the pod ends Succeeded or Failed once none runs."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    now = rfc3339(wall)
    previous = {c.get("name"): c for c in status.get("containerStatuses") or []}
    reason = "Completed" if exit_code == 0 else "Error"
    pod_policy = spec.get("restartPolicy") or "Always"
    containers = spec.get("containers") or []

    def terminated(name: str) -> Obj:
        started = ((previous.get(name) or {}).get("state") or {}).get("running", {}).get("startedAt", now)
        return {"terminated": {"exitCode": exit_code, "reason": reason, "startedAt": started, "finishedAt": now}}

    def done(container: Obj) -> bool:
        return "terminated" in ((previous.get(container["name"]) or {}).get("state") or {})

    restarting = {c["name"] for c in containers if not done(c) and container_restarts(c, pod_policy, exit_code)}
    if restarting and len(restarting) == len(containers):
        restarts = max((c.get("restartCount", 0) for c in previous.values()), default=0) + 1
        last = terminated((containers or [{}])[0].get("name", ""))
        return running_status(
            pod, status.get("hostIP", ""), status.get("podIP", ""), wall, restarts=restarts, last=last
        )
    uid = pod["metadata"].get("uid", "")

    def reported(container: Obj) -> Obj:
        name, before = container["name"], previous.get(container["name"]) or {}
        if done(container):
            return before
        count = before.get("restartCount", 0)
        if name in restarting:
            return _container(
                container, uid, {"running": {"startedAt": now}}, ready=True, restarts=count + 1, last=terminated(name)
            )
        return _container(
            container, uid, terminated(name), ready=False, restarts=count, last=before.get("lastState") or {}
        )

    if restarting:
        return {
            **status,
            "phase": "Running",
            "conditions": _conditions(pod, False, "ContainersNotReady", now),
            "containerStatuses": [reported(c) for c in containers],
        }
    return {
        **status,
        "phase": "Succeeded" if exit_code == 0 else "Failed",
        "conditions": _conditions(pod, False, "PodCompleted", now),
        "containerStatuses": [reported(c) for c in containers],
    }


def killed_status(pod: Obj, wall: float) -> Obj:
    """The terminal status the kubelet writes for a deleted pod once its containers are killed (since
    1.27, before the pod is removed): running containers end with exit code 137 (`Error`), those that
    never started are reported as upstream's `ContainerStatusUnknown`; the pod ends Failed unless it
    already succeeded."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    now = rfc3339(wall)
    uid = pod["metadata"].get("uid", "")
    previous = {c.get("name"): c for c in status.get("containerStatuses") or []}

    def killed(container: Obj) -> Obj:
        before = previous.get(container["name"])
        state = (before or {}).get("state") or {}
        if "terminated" in state:
            return before or {}
        if "running" in state:
            ended = {"exitCode": 137, "reason": "Error", "startedAt": state["running"].get("startedAt", now)}
        else:
            ended = {
                "exitCode": 137,
                "reason": "ContainerStatusUnknown",
                "message": "The container could not be located when the pod was terminated",
            }
        restarts = (before or {}).get("restartCount", 0)
        last = (before or {}).get("lastState") or {}
        return _container(
            container, uid, {"terminated": {**ended, "finishedAt": now}}, ready=False, restarts=restarts, last=last
        )

    return {
        **status,
        "phase": "Succeeded" if status.get("phase") == "Succeeded" else "Failed",
        "conditions": _conditions(pod, False, "PodCompleted", now),
        "containerStatuses": [killed(c) for c in spec.get("containers") or []],
    }
