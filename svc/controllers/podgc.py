"""The pod garbage collector: removes pods nothing else will.

Upstream `pkg/controller/podgc`, a periodic pass (at start, then every 20 s) rather than a work queue:
- terminated pods (Succeeded or Failed) beyond `--terminated-pod-gc-threshold` (0 turns it off),
  oldest first;
- orphaned pods bound to a node that no longer exists: a node missing from the cache is
  quarantined for 40 s and then confirmed missing by the server before its pods go, each marked
  Failed with a `DisruptionTarget` condition (reason `DeletionByPodGC`) first;
- terminating pods never scheduled (no kubelet will ever finish their deletion).
Deletions are forced (grace period 0), as upstream.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.workers import every
from svc.controllers.context import ControllerContext

NAME = "pod-garbage-collector-controller"
log = logging.getLogger(__name__)
CHECK_PERIOD = 20.0
QUARANTINE = 40.0
Obj = dict[str, Any]


class PodGarbageCollector:
    def __init__(self, context: ControllerContext, *, terminated_threshold: int = 12500) -> None:
        self.context = context
        self.terminated_threshold = terminated_threshold
        self.pods = context.informers.informer("", "v1", "pods")
        self.nodes = context.informers.informer("", "v1", "nodes")
        # node name -> when (monotonic) pods bound to it were first seen without the node.
        self.missing_since: dict[str, float] = {}

    async def run(self) -> None:
        await every(self.context.clock, CHECK_PERIOD, self.gc)

    async def gc(self) -> None:
        """One pass over the cached pods and nodes."""
        pods = self.pods.list()
        if self.terminated_threshold > 0:
            await self._gc_terminated(pods)
        await self._gc_orphaned(pods)
        for pod in pods:
            if pod["metadata"].get("deletionTimestamp") and not (pod.get("spec") or {}).get("nodeName"):
                await self._fail_and_delete(pod)

    async def _gc_terminated(self, pods: list[Obj]) -> None:
        terminated = [pod for pod in pods if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")]
        excess = len(terminated) - self.terminated_threshold
        if excess <= 0:
            return
        terminated.sort(key=lambda pod: (pod["metadata"].get("creationTimestamp", ""), pod["metadata"]["name"]))
        await asyncio.gather(*(self._fail_and_delete(pod) for pod in terminated[:excess]))

    async def _gc_orphaned(self, pods: list[Obj]) -> None:
        bound = {(pod.get("spec") or {}).get("nodeName") for pod in pods} - {None, ""}
        missing = {name for name in bound if self.nodes.get(name) is None}
        now = self.context.clock.now()
        for name in set(self.missing_since) - missing:
            del self.missing_since[name]
        gone = set()
        for name in missing:
            since = self.missing_since.setdefault(name, now)
            if now - since >= QUARANTINE and not await self._node_exists(name):
                gone.add(name)
        for pod in pods:
            if (pod.get("spec") or {}).get("nodeName") in gone:
                condition = {
                    "type": "DisruptionTarget",
                    "status": "True",
                    "reason": "DeletionByPodGC",
                    "message": "PodGC: node no longer exists",
                }
                await self._fail_and_delete(pod, condition)

    async def _node_exists(self, name: str) -> bool:
        """False only when the server says the node is gone; a failed read is logged and the node
        looked up again on the next pass, as upstream's `discoverDeletedNodes`."""
        try:
            await self.context.client.get(resource_path("", "v1", "nodes", name=name))
        except (ApiError, OSError) as error:
            if isinstance(error, ApiError) and error.reason == "NotFound":
                return False
            log.warning("%s: error while getting node %s: %s", NAME, name, error)
        return True

    async def _fail_and_delete(self, pod: Obj, condition: Obj | None = None) -> None:
        """Mark a still-running pod Failed (with `condition`), then force-delete it. A failure is
        logged and the pass goes on to the next pod (upstream hands it to `HandleError`)."""
        metadata = pod["metadata"]
        path = resource_path("", "v1", "pods", namespace=metadata.get("namespace", ""), name=metadata["name"])
        try:
            if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                status: Obj = {"phase": "Failed"}
                if condition is not None:
                    stamp = datetime.fromtimestamp(self.context.clock.wall(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                    status["conditions"] = [{**condition, "lastTransitionTime": stamp}]
                await self.context.client.patch(f"{path}/status", {"status": status}, patch_type="strategic")
            await self.context.client.delete(
                path, {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0}
            )
        except (ApiError, OSError) as error:
            if not isinstance(error, ApiError) or error.reason != "NotFound":
                log.warning(
                    "%s: deleting pod %s/%s failed: %s", NAME, metadata.get("namespace"), metadata["name"], error
                )
