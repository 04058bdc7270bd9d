"""The ttl-after-finished controller: a finished Job with `ttlSecondsAfterFinished` is deleted once
that many seconds have passed since it finished.

Upstream `pkg/controller/ttlafterfinished`: the key is a Job, queued when it appears or changes
while it has a TTL and a true `Complete` or `Failed` condition (whose `lastTransitionTime` is when it
finished). A sync that is early comes back when the TTL runs out; one that is due reads the Job
again from the server (its TTL may have just been changed) and deletes it in the foreground, with
its UID as precondition so a new Job of the same name is never hit.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler, key_of
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "ttl-after-finished-controller"
Obj = dict[str, Any]


class TTLAfterFinishedController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.jobs = context.informers.informer("batch", "v1", "jobs")
        self.jobs.add_handler(Handler(on_add=self._maybe_queue, on_update=lambda _old, job: self._maybe_queue(job)))

    def _maybe_queue(self, job: Obj) -> None:
        if needs_cleanup(job):
            self.queue.add(key_of(job))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        job = self.jobs.get(key)
        if job is None or self._remaining(job) is None:
            return
        namespace, name = key.split("/", 1)
        path = resource_path(self.context.profile.group("batch"), "v1", "jobs", namespace=namespace, name=name)
        try:
            fresh = await self.context.client.get(path)
        except ApiError as error:
            if error.reason == "NotFound":
                return
            raise
        if self._remaining(fresh) is None:
            return
        body = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": "Foreground",
            "preconditions": {"uid": fresh["metadata"].get("uid", "")},
        }
        try:
            await self.context.client.delete(path, body)
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict"):
                raise

    def _remaining(self, job: Obj) -> float | None:
        """None when the Job is not to be cleaned up; raises RequeueAfter while its TTL runs."""
        if not needs_cleanup(job):
            return None
        finished = finish_time(job)
        if finished is None:
            name = f"{job['metadata'].get('namespace', '')}/{job['metadata']['name']}"
            raise ValueError(f"unable to find the time when the Job {name} finished")
        left = finished + job["spec"]["ttlSecondsAfterFinished"] - self.context.clock.wall()
        if left > 0:
            raise RequeueAfter(left, f"the Job's TTL runs out in {left:.1f}s")
        return left


def finished_condition(job: Obj) -> Obj | None:
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return condition
    return None


def needs_cleanup(job: Obj) -> bool:
    return (job.get("spec") or {}).get("ttlSecondsAfterFinished") is not None and finished_condition(job) is not None


def finish_time(job: Obj) -> float | None:
    condition = finished_condition(job) or {}
    stamp = condition.get("lastTransitionTime")
    if not stamp:
        return None
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
