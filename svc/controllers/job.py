"""The job controller: run a Job's pods to completion, count them exactly once, and end the Job.

Upstream `pkg/controller/job`, in the shape of 1.36:
- pods carry the `batch.kubernetes.io/job-tracking` finalizer; a finished pod is first recorded in
  `status.uncountedTerminatedPods`, then its finalizer is removed, then it moves into the
  `succeeded`/`failed` counters, so a pod deleted early is never lost or counted twice;
- NonIndexed Jobs keep `min(parallelism, completions - succeeded)` pods active; Indexed Jobs one pod
  per pending index (annotation and label `batch.kubernetes.io/job-completion-index`, hostname
  `<job>-<index>`, `JOB_COMPLETION_INDEX` in the environment), with `completedIndexes`;
- replacements of failed pods wait 10 s doubled per failure (at most 6 min);
- the Job fails on `backoffLimit` (BackoffLimitExceeded), `activeDeadlineSeconds` (DeadlineExceeded),
  `backoffLimitPerIndex`/`maxFailedIndexes` (FailedIndexes) or a `podFailurePolicy` FailJob rule
  (PodFailurePolicy); Ignore rules do not count a failure, FailIndex fails the pod's index;
- it succeeds when the completions are reached or a `successPolicy` rule is met: first the
  `SuccessCriteriaMet` (or, failing, `FailureTarget`) condition, then, once no pod is left running,
  `Complete` (or `Failed`), as upstream;
- `suspend` deletes the active pods and sets `Suspended`; resuming resets `startTime`.
"""

from __future__ import annotations

import asyncio
import copy
from datetime import datetime
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import job_rules, pod_events
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import claim, controller_of, owner_reference, selector_of
from svc.controllers.deployment_math import condition, rfc3339
from svc.controllers.expectations import Expectations
from svc.controllers.replicaset import SLOW_START_INITIAL_BATCH, deletion_rank, ready_since

NAME = "job-controller"
Obj = dict[str, Any]
TERMINAL = ("Succeeded", "Failed")


def _finished(job: Obj) -> bool:
    status = job.get("status") or {}
    return any(
        condition(status, kind) is not None and condition(status, kind).get("status") == "True"
        for kind in ("Complete", "Failed")
    )


class _Stale(Exception):
    """A status write lost to a newer version of the Job: this sync's view is out of date."""


def _timestamp(text: str | None) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() if text else 0.0


def _finished_at(pod: Obj) -> float:
    """When the pod's last container finished (the start of the replacement back-off)."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return max(
        (_timestamp(((s.get("state") or {}).get("terminated") or {}).get("finishedAt")) for s in statuses), default=0.0
    )


class JobController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        label = context.profile.label
        self.finalizer = label("batch.kubernetes.io/job-tracking")
        self.index_key = label("batch.kubernetes.io/job-completion-index")
        self.failure_count_key = label("batch.kubernetes.io/job-index-failure-count")
        self.batch = context.profile.group("batch")
        self.events = context.recorder(NAME)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.expectations = Expectations(context.clock)
        self._released: set[str] = set()
        """Pods whose finalizer this controller removed (and counted) while the cache may still show it."""
        self._written: dict[str, int] = {}
        """Per Job, the resourceVersion of this controller's last status write: a sync waits until the
        cache shows it, since an older Job would not count the pods released since (and over-create)."""
        self.jobs: Informer = context.informers.informer("batch", "v1", "jobs")
        self.pods: Informer = context.informers.informer("", "v1", "pods")
        enqueue = lambda obj: self.queue.add(key_of(obj))  # noqa: E731
        self.jobs.add_handler(Handler(on_add=enqueue, on_update=lambda _old, new: enqueue(new), on_delete=self._gone))
        self.pods.add_handler(Handler(on_add=self._pod_added, on_update=self._pod_updated, on_delete=self._pod_deleted))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    # -- events -------------------------------------------------------------------------------
    def _owner_key(self, pod: Obj) -> str | None:
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "Job":
            return None
        return f"{pod['metadata']['namespace']}/{ref.get('name')}"

    def _pod_added(self, pod: Obj) -> None:
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.creation_observed(key)
            self.queue.add(key)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        if self.finalizer not in (new["metadata"].get("finalizers") or []):
            self._released.discard(new["metadata"].get("uid", ""))
        key = self._owner_key(new)
        if key is None:
            return
        if new["metadata"].get("deletionTimestamp") and not old["metadata"].get("deletionTimestamp"):
            self.expectations.deletion_observed(key, key_of(new))
        self.queue.add(key)

    def _pod_deleted(self, pod: Obj) -> None:
        self._released.discard(pod["metadata"].get("uid", ""))
        key = self._owner_key(pod)
        if key is not None:
            self.expectations.deletion_observed(key, key_of(pod))
            self.queue.add(key)

    def _gone(self, job: Obj) -> None:
        self.expectations.forget(key_of(job))
        self._written.pop(key_of(job), None)
        self.queue.add(key_of(job))  # its pods still holding the finalizer are released by the sync

    # -- helpers ------------------------------------------------------------------------------
    def _job_path(self, job: Obj, subresource: str = "") -> str:
        metadata = job["metadata"]
        return resource_path(
            self.batch, "v1", "jobs", namespace=metadata["namespace"], name=metadata["name"], subresource=subresource
        )

    @staticmethod
    def _pod_path(pod: Obj) -> str:
        metadata = pod["metadata"]
        return resource_path("", "v1", "pods", namespace=metadata["namespace"], name=metadata["name"])

    def _index(self, pod: Obj) -> int | None:
        text = (pod["metadata"].get("annotations") or {}).get(self.index_key)
        return int(text) if text is not None and text.isdigit() else None

    # -- sync ---------------------------------------------------------------------------------
    async def sync(self, key: str) -> None:
        try:
            await self._sync(key)
        except _Stale:
            self.queue.add(key)  # the newer Job is on its way through the watch; look again then

    async def _sync(self, key: str) -> None:
        job = self.jobs.get(key)
        await self._release_orphans(key, job)
        if job is None:
            self.expectations.forget(key)
            return
        if int(job["metadata"].get("resourceVersion") or 0) < self._written.get(key, 0):
            return  # the watch brings our own write (and with it this Job back to the queue)
        # Expectations before the pod cache, as upstream: a creation observed after this point is then
        # in the cache read below, never counted as observed while missing from this sync's pods.
        satisfied = self.expectations.satisfied(key)
        job = copy.deepcopy(job)
        before = copy.deepcopy((job.get("status") or {}).get("conditions") or [])
        namespace = job["metadata"]["namespace"]
        reference = owner_reference(job, f"{self.batch}/v1", "Job")
        pods = await claim(
            self.context.client,
            job,
            self.pods.by_index(NAMESPACE_INDEX, namespace),
            selector_of(job),
            reference,
            self._pod_path,
        )
        status = job.setdefault("status", {})
        if _finished(job):
            await self._release_leftovers(pods)
            return
        await self._count_finished(job, pods)
        active = [
            p
            for p in pods
            if (p.get("status") or {}).get("phase") not in TERMINAL and not p["metadata"].get("deletionTimestamp")
        ]
        terminating = [
            p
            for p in pods
            if p["metadata"].get("deletionTimestamp") and (p.get("status") or {}).get("phase") not in TERMINAL
        ]
        now = self.context.clock.wall()
        spec = job["spec"]
        if spec.get("suspend"):
            if satisfied:  # as upstream, a suspension is enacted once the Job's pods are all seen
                await self._remove(key, job, active)
                self._set(status, "Suspended", "True", "JobSuspended", "Job suspended", now)
                status.pop("startTime", None)
                terminating, active = [*terminating, *active], []
        else:
            suspended = condition(status, "Suspended")
            if suspended is not None and suspended.get("status") == "True":
                self._set(status, "Suspended", "False", "JobResumed", "Job resumed", now)
            status.setdefault("startTime", rfc3339(now))
            if self._ending(job) is None:
                self._judge(job, now)
            ending = self._ending(job)
            if ending is not None:
                await asyncio.gather(*(self._delete(key, job, pod) for pod in active))
                terminating, active = [*terminating, *active], []  # as upstream, the pods just deleted
                if not terminating and satisfied:  # a pod created but not yet seen could still be running
                    self._finish(job, ending, now)
            elif satisfied:
                kept = await self._manage(key, job, pods, active, terminating, now)
                terminating, active = [*terminating, *(pod for pod in active if pod not in kept)], kept
        status["active"] = len(active)
        status["ready"] = sum(1 for pod in active if ready_since(pod) is not None)
        status["terminating"] = len(terminating)
        await self._write_status(job)
        await self._condition_events(job, before)

    async def _condition_events(self, job: Obj, before: list[Obj]) -> None:
        """Upstream's Job events for conditions that just changed: `Completed`, the failure's own reason
        and message (`BackoffLimitExceeded`, `DeadlineExceeded`, ...), `Suspended` and `Resumed`."""
        was = {c.get("type"): (c.get("status"), c.get("reason")) for c in before}
        for current in (job.get("status") or {}).get("conditions") or []:
            kind, truth = current.get("type"), current.get("status")
            if was.get(kind) == (truth, current.get("reason")):
                continue
            if kind == "Complete" and truth == "True":
                event = ("Normal", "Completed", "Job completed")
            elif kind == "Failed" and truth == "True":
                event = ("Warning", current.get("reason", ""), current.get("message", ""))
            elif kind == "Suspended":
                event = (
                    ("Normal", "Suspended", "Job suspended")
                    if truth == "True"
                    else ("Normal", "Resumed", "Job resumed")
                )
            else:
                continue
            await self.events.event(job, "Job", f"{self.batch}/v1", *event)

    async def _count_finished(self, job: Obj, pods: list[Obj]) -> None:
        """Count each finished pod exactly once: record it, release its finalizer, then add it up.

        Upstream's `trackJobStatusAndRemoveFinalizers`: a pod is released once it succeeded, is considered
        failed (`considered_failed`), or the Job is being deleted or has its end decided; a released pod
        that did neither counts as failed unless the Job is ending in success. Failures a pod failure
        policy ignores are released without being recorded."""
        status = job["status"]
        uncounted = status.setdefault("uncountedTerminatedPods", {})
        recorded = {uid for uids in uncounted.values() for uid in uids}
        ending = self._ending(job)
        finishing = ending is not None or bool(job["metadata"].get("deletionTimestamp"))
        fresh = False
        releasing = []
        for pod in pods:
            uid = pod["metadata"]["uid"]
            if self.finalizer not in (pod["metadata"].get("finalizers") or []) or uid in self._released:
                continue
            succeeded = (pod.get("status") or {}).get("phase") == "Succeeded"
            failed = job_rules.considered_failed(job, pod)
            if not (finishing or succeeded or failed):
                continue
            releasing.append(pod)
            counted_failed = failed or (ending is not None and ending[0] != "Complete")
            if uid in recorded or not (succeeded or counted_failed) or not self._counts(job, pod):
                continue
            uncounted.setdefault("succeeded" if succeeded else "failed", []).append(uid)
            recorded.add(uid)
            fresh = True
        if fresh:
            await self._write_status(job)
        await asyncio.gather(*(self._release(pod) for pod in releasing))
        if recorded:
            status["succeeded"] = (status.get("succeeded") or 0) + len(uncounted.get("succeeded") or [])
            status["failed"] = (status.get("failed") or 0) + len(uncounted.get("failed") or [])
        status["uncountedTerminatedPods"] = {}

    def _counts(self, job: Obj, pod: Obj) -> bool:
        """Apply a finished pod to the Job's indexes and failure policy; False when it is not counted:
        a pod failure policy rule says to ignore it, or, in an Indexed Job, its index is missing, out of
        range or (for a success) already completed, as upstream counts successes by index."""
        status, spec = job["status"], job["spec"]
        index = self._index(pod)
        completions = spec.get("completions") or 0
        if spec.get("completionMode") == "Indexed" and (index is None or index >= completions):
            return False
        if (pod.get("status") or {}).get("phase") == "Succeeded":
            if index is not None:
                done = job_rules.parse_indexes(status.get("completedIndexes"), completions)
                if index in done:
                    return False
                status["completedIndexes"] = job_rules.format_indexes(done | {index})
            return True
        match = job_rules.match_failure_policy(job, pod) if spec.get("podFailurePolicy") else None
        if match is not None and match.action == "Ignore":
            return False
        now = self.context.clock.wall()
        if match is not None and match.action == "FailJob":
            self._set(status, "FailureTarget", "True", "PodFailurePolicy", match.message, now)
        if index is not None and spec.get("backoffLimitPerIndex") is not None:
            failures = self._index_failures(pod) + 1
            if (match is not None and match.action == "FailIndex") or failures > spec["backoffLimitPerIndex"]:
                failed = job_rules.parse_indexes(status.get("failedIndexes"), completions)
                status["failedIndexes"] = job_rules.format_indexes(failed | {index})
        return True

    def _index_failures(self, pod: Obj) -> int:
        text = (pod["metadata"].get("annotations") or {}).get(self.failure_count_key, "0")
        return int(text) if text.isdigit() else 0

    async def _release_orphans(self, key: str, job: Obj | None) -> None:
        """Upstream's orphan-pod cleanup: pods whose controlling Job of this name is gone (or was
        replaced by a new Job of the same name) lose the tracking finalizer, or they could never go."""
        namespace, _, name = key.partition("/")
        uid = job["metadata"].get("uid") if job is not None else None
        orphans = [
            pod
            for pod in self.pods.by_index(NAMESPACE_INDEX, namespace)
            if (ref := controller_of(pod)) is not None
            and ref.get("kind") == "Job"
            and ref.get("name") == name
            and ref.get("uid") != uid
        ]
        await self._release_leftovers(orphans)

    async def _release_leftovers(self, pods: list[Obj]) -> None:
        """Release, uncounted, the pods still holding the tracking finalizer that no Job will count: a
        finished Job's (one deleted as the Job ended, say) or those of a Job that is gone."""
        held = [
            pod
            for pod in pods
            if self.finalizer in (pod["metadata"].get("finalizers") or [])
            and pod["metadata"]["uid"] not in self._released
        ]
        await asyncio.gather(*(self._release(pod) for pod in held))

    async def _release(self, pod: Obj) -> None:
        finalizers = [f for f in pod["metadata"].get("finalizers") or [] if f != self.finalizer]
        try:
            await self.context.client.patch(
                self._pod_path(pod), {"metadata": {"finalizers": finalizers, "uid": pod["metadata"]["uid"]}}
            )
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict", "Invalid"):
                raise
            return
        self._released.add(pod["metadata"]["uid"])

    def _ending(self, job: Obj) -> tuple[str, str, str] | None:
        """(outcome condition, reason, message) once the Job's end is decided."""
        status = job["status"]
        for kind, final in (("SuccessCriteriaMet", "Complete"), ("FailureTarget", "Failed")):
            found = condition(status, kind)
            if found is not None and found.get("status") == "True":
                return final, found.get("reason", ""), found.get("message", "")
        return None

    def _judge(self, job: Obj, now: float) -> None:
        """Decide success or failure from the counters (upstream's order: failure first)."""
        spec, status = job["spec"], job["status"]
        failure = None
        failed = status.get("failed") or 0
        completions = spec.get("completions")
        indexed = spec.get("completionMode") == "Indexed"
        if failure is None and spec.get("backoffLimitPerIndex") is None and failed > spec.get("backoffLimit", 6):
            failure = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
        if failure is None and indexed and spec.get("backoffLimitPerIndex") is not None:
            failed_indexes = job_rules.parse_indexes(status.get("failedIndexes"), completions or 0)
            limit = spec.get("maxFailedIndexes")
            if limit is not None and len(failed_indexes) > limit:
                failure = (
                    "MaxFailedIndexesExceeded",
                    "Job has exceeded the specified maximal number of failed indexes",
                )
        deadline = spec.get("activeDeadlineSeconds")
        if failure is None and deadline is not None and now - _timestamp(status.get("startTime")) >= deadline:
            failure = ("DeadlineExceeded", "Job was active longer than specified deadline")
        if failure is not None:
            self._set(status, "FailureTarget", "True", failure[0], failure[1], now)
            return
        succeeded = status.get("succeeded") or 0
        if indexed:
            done = job_rules.parse_indexes(status.get("completedIndexes"), completions or 0)
            rule = job_rules.success_policy_met(job, done)
            if rule is not None:
                self._set(status, "SuccessCriteriaMet", "True", "SuccessPolicy", f"Matched rules at index {rule}", now)
                return
            failed_indexes = job_rules.parse_indexes(status.get("failedIndexes"), completions or 0)
            if len(done) + len(failed_indexes) >= (completions or 0):
                if failed_indexes:
                    self._set(status, "FailureTarget", "True", "FailedIndexes", "Job has failed indexes", now)
                else:
                    self._set(
                        status,
                        "SuccessCriteriaMet",
                        "True",
                        "CompletionsReached",
                        "Reached expected number of succeeded pods",
                        now,
                    )
            return
        if (completions is not None and succeeded >= completions) or (completions is None and succeeded > 0):
            self._set(
                status,
                "SuccessCriteriaMet",
                "True",
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                now,
            )

    def _finish(self, job: Obj, ending: tuple[str, str, str], now: float) -> None:
        final, reason, message = ending
        status = job["status"]
        self._set(status, final, "True", reason, message, now)
        if final == "Complete":
            status["completionTime"] = rfc3339(now)

    @staticmethod
    def _set(status: Obj, kind: str, truth: str, reason: str, message: str, now: float) -> None:
        current = condition(status, kind)
        if current is not None and current.get("status") == truth and current.get("reason") == reason:
            return
        stamp = rfc3339(now)
        new = {
            "type": kind,
            "status": truth,
            "lastProbeTime": stamp,
            "lastTransitionTime": stamp,
            "reason": reason,
            "message": message,
        }
        status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != kind] + [new]

    async def _manage(
        self, key: str, job: Obj, pods: list[Obj], active: list[Obj], terminating: list[Obj], now: float
    ) -> list[Obj]:
        spec, status = job["spec"], job["status"]
        parallelism = spec.get("parallelism", 1)
        completions = spec.get("completions")
        occupied = len(active) + (len(terminating) if job_rules.only_replaces_failed(job) else 0)
        indexed = spec.get("completionMode") == "Indexed"
        total = completions or 0
        completed = job_rules.parse_indexes(status.get("completedIndexes"), total)
        if indexed:
            target = max(min(parallelism, total - len(completed)), 0)
        elif completions is not None:
            target = max(min(parallelism, completions - (status.get("succeeded") or 0)), 0)
        else:
            target = 0 if status.get("succeeded") else parallelism
        doomed = job_rules.surplus_pods(active, target, deletion_rank, self._index if indexed else None, total)
        if doomed:
            await self._remove(key, job, doomed)
            return [pod for pod in active if pod not in doomed]
        if indexed:
            done = completed | job_rules.parse_indexes(status.get("failedIndexes"), total)
            running = {self._index(pod) for pod in active}
            pending = [index for index in range(total) if index not in done and index not in running]
            wanted: list[int | None] = list(pending[: max(parallelism - occupied, 0)])
        else:
            wanted = [None] * max(target - occupied, 0)
        if not wanted:
            return active
        last = max(
            (_finished_at(pod) for pod in pods if (pod.get("status") or {}).get("phase") == "Failed"), default=0.0
        )
        delay = job_rules.backoff_delay(status.get("failed") or 0) - (now - last) if last else 0.0
        if delay > 0:
            self.queue.add_after(key, delay)
            return active
        failures_by_index: dict[int, int] = {}
        for pod in pods:
            index = self._index(pod)
            if index is not None:
                failed = 1 if (pod.get("status") or {}).get("phase") == "Failed" else 0
                failures_by_index[index] = max(failures_by_index.get(index, 0), self._index_failures(pod) + failed)
        self.expectations.expect(key, adds=len(wanted))
        created, error = await self._create(job, wanted, failures_by_index)
        if created < len(wanted):
            self.expectations.creations_failed(key, len(wanted) - created)
        if error is not None:
            raise error
        return active

    def _pod(self, job: Obj, index: int | None, failures: int) -> Obj:
        template = job["spec"].get("template") or {}
        template_metadata = template.get("metadata") or {}
        name = job["metadata"]["name"]
        metadata: Obj = {
            "generateName": f"{name}-" if index is None else f"{name}-{index}-",
            "namespace": job["metadata"]["namespace"],
            "labels": dict(template_metadata.get("labels") or {}),
            "annotations": dict(template_metadata.get("annotations") or {}),
            "finalizers": [*(template_metadata.get("finalizers") or []), self.finalizer],
            "ownerReferences": [owner_reference(job, f"{self.batch}/v1", "Job")],
        }
        spec = copy.deepcopy(template.get("spec") or {})
        if index is not None:
            metadata["annotations"][self.index_key] = str(index)
            metadata["labels"][self.index_key] = str(index)
            if job["spec"].get("backoffLimitPerIndex") is not None:
                metadata["annotations"][self.failure_count_key] = str(failures)
            spec.setdefault("hostname", f"{name}-{index}")
            variable = {
                "name": "JOB_COMPLETION_INDEX",
                "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{self.index_key}']"}},
            }
            for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
                container["env"] = [*(container.get("env") or []), variable]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}

    async def _create(
        self, job: Obj, indexes: list[int | None], index_failures: dict[int, int]
    ) -> tuple[int, BaseException | None]:
        path = resource_path("", "v1", "pods", namespace=job["metadata"]["namespace"])
        created, batch, position = 0, SLOW_START_INITIAL_BATCH, 0
        while position < len(indexes):
            chunk = indexes[position : position + batch]
            position += len(chunk)
            results = await asyncio.gather(
                *(
                    self.context.client.create(
                        path, self._pod(job, index, index_failures.get(index, 0) if index is not None else 0)
                    )
                    for index in chunk
                ),
                return_exceptions=True,
            )
            for result in results:
                await pod_events.record(self.events, job, "Job", f"{self.batch}/v1", "Create", result)
            failures = [result for result in results if isinstance(result, BaseException)]
            created += len(chunk) - len(failures)
            if failures:
                return created, failures[0]
            batch *= 2
        return created, None

    async def _remove(self, key: str, job: Obj, pods: list[Obj]) -> None:
        """Upstream's `deleteJobPods`, for pods the Job no longer wants (surplus, duplicate indexes, a
        suspended Job's): each loses the tracking finalizer first, so it is not counted as a failure,
        then is deleted."""
        if not pods:
            return
        self.expectations.expect(key, deletes={key_of(pod) for pod in pods})

        async def remove(pod: Obj) -> None:
            await self._release(pod)
            await self._delete(key, job, pod)

        await asyncio.gather(*(remove(pod) for pod in pods))

    async def _delete(self, key: str, job: Obj, pod: Obj) -> None:
        try:
            await self.context.client.delete(self._pod_path(pod))
        except ApiError as error:
            self.expectations.deletion_observed(key, key_of(pod))
            if error.reason != "NotFound":
                await pod_events.record(self.events, job, "Job", f"{self.batch}/v1", "Delete", error)
                raise
        else:
            await pod_events.record(self.events, job, "Job", f"{self.batch}/v1", "Delete", pod)

    async def _write_status(self, job: Obj) -> None:
        status = job["status"]
        current = self.jobs.get(key_of(job))
        if current is not None and (current.get("status") or {}) == status:
            return
        try:
            body = {**job, "status": copy.deepcopy(status)}
            updated = await self.context.client.update(self._job_path(job, "status"), body)
        except ApiError as error:
            if error.reason in ("Conflict", "NotFound"):
                raise _Stale() from error
            raise
        job["metadata"]["resourceVersion"] = updated.get("metadata", {}).get(
            "resourceVersion", job["metadata"].get("resourceVersion")
        )
        self._written[key_of(job)] = int(job["metadata"]["resourceVersion"] or 0)
