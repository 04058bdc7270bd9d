"""The cronjob controller: create a CronJob's Jobs at its scheduled times.

Upstream `pkg/controller/cronjob` (v2): a sync refreshes `status.active` and `lastSuccessfulTime` from
the CronJob's Jobs, then, unless suspended, takes the most recent scheduled time not yet run (from
`lastScheduleTime`, or creation, bounded by `startingDeadlineSeconds`; more than 100 missed times is
reported and the latest one run), honours `concurrencyPolicy` (Allow, Forbid, Replace), and creates
the Job `<cronjob>-<scheduled minutes since the epoch>` with the
`batch.kubernetes.io/cronjob-scheduled-timestamp` annotation. Finished Jobs beyond
`successfulJobsHistoryLimit` and `failedJobsHistoryLimit` are deleted, oldest first. The CronJob is
queued again for its next scheduled time, read from the controller's clock (a fake one in tests).
"""

from __future__ import annotations

import copy
import datetime
import logging
import zoneinfo
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import controller_of, owner_reference
from svc.controllers.deployment_math import condition
from svc.machinery.cron import CronError, Schedule, parse_schedule, zone_exists
from svc.machinery.gotext import quote

NAME = "cronjob-controller"
Obj = dict[str, Any]
MISSED_LIMIT = 100
log = logging.getLogger(__name__)


def _time(text: str | None) -> datetime.datetime | None:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def _stamp(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def job_outcome(job: Obj) -> str:
    """ "Complete", "Failed", or "" while the Job runs."""
    status = job.get("status") or {}
    for kind in ("Complete", "Failed"):
        found = condition(status, kind)
        if found is not None and found.get("status") == "True":
            return kind
    return ""


def most_recent_time(cronjob: Obj, schedule: Schedule, now: datetime.datetime) -> tuple[datetime.datetime | None, int]:
    """The latest scheduled time not after `now` that is due, and how many were due in all."""
    spec, status = cronjob["spec"], cronjob.get("status") or {}
    earliest = _time(status.get("lastScheduleTime")) or _time(cronjob["metadata"].get("creationTimestamp")) or now
    deadline = spec.get("startingDeadlineSeconds")
    if deadline is not None:
        earliest = max(earliest, now - datetime.timedelta(seconds=deadline))
    latest, missed = None, 0
    moment = schedule.next_after(earliest)
    while moment is not None and moment <= now:
        latest, missed = moment, missed + 1
        if missed > MISSED_LIMIT * 10:
            break
        moment = schedule.next_after(moment)
    return latest, missed


class CronJobController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.batch = context.profile.group("batch")
        self.events = context.recorder(NAME)
        self.scheduled_key = context.profile.label("batch.kubernetes.io/cronjob-scheduled-timestamp")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.cronjobs: Informer = context.informers.informer("batch", "v1", "cronjobs")
        self.jobs: Informer = context.informers.informer("batch", "v1", "jobs")
        enqueue = lambda obj: self.queue.add(key_of(obj))  # noqa: E731
        self.cronjobs.add_handler(Handler(on_add=enqueue, on_update=lambda _old, new: enqueue(new)))
        on_job = lambda job: self._enqueue_owner(job)  # noqa: E731
        self.jobs.add_handler(Handler(on_add=on_job, on_update=lambda _old, new: on_job(new), on_delete=on_job))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    def _enqueue_owner(self, job: Obj) -> None:
        ref = controller_of(job)
        if ref is not None and ref.get("kind") == "CronJob":
            self.queue.add(f"{job['metadata']['namespace']}/{ref.get('name')}")

    def _path(self, resource: str, namespace: str, name: str = "", subresource: str = "") -> str:
        return resource_path(self.batch, "v1", resource, namespace=namespace, name=name, subresource=subresource)

    async def sync(self, key: str) -> None:
        cronjob = self.cronjobs.get(key)
        if cronjob is None:
            return
        cronjob = copy.deepcopy(cronjob)
        namespace = cronjob["metadata"]["namespace"]
        uid = cronjob["metadata"]["uid"]
        jobs = [
            job
            for job in self.jobs.by_index(NAMESPACE_INDEX, namespace)
            if (controller_of(job) or {}).get("uid") == uid
        ]
        status = cronjob.setdefault("status", {})
        before = copy.deepcopy(status)
        self._refresh(status, jobs)
        now = datetime.datetime.fromtimestamp(self.context.clock.wall(), datetime.UTC)
        spec = cronjob["spec"]
        wait: float | None = None
        if (
            not cronjob["metadata"].get("deletionTimestamp")
            and await self._zone_loads(cronjob)
            and not spec.get("suspend")
        ):
            wait = await self._run_due(cronjob, jobs, now)
        await self._clean_history(cronjob, jobs)
        if status != before:
            body = {**cronjob, "status": status}
            try:
                await self.context.client.update(
                    self._path("cronjobs", namespace, cronjob["metadata"]["name"], "status"), body
                )
            except ApiError as error:
                if error.reason not in ("Conflict", "NotFound"):
                    raise
                self.queue.add(key)
                return
        if wait is not None:
            self.queue.add_after(key, max(wait, 0.0) + 0.1)

    def _refresh(self, status: Obj, jobs: list[Obj]) -> None:
        """`active` lists the running Jobs; the newest success sets `lastSuccessfulTime`."""
        running = [job for job in jobs if not job_outcome(job)]
        status["active"] = [
            {
                "kind": "Job",
                "namespace": job["metadata"]["namespace"],
                "name": job["metadata"]["name"],
                "uid": job["metadata"].get("uid", ""),
                "apiVersion": f"{self.batch}/v1",
                "resourceVersion": job["metadata"].get("resourceVersion", ""),
            }
            for job in sorted(running, key=lambda job: job["metadata"]["name"])
        ]
        if not status["active"]:
            status.pop("active")
        finished = [
            _time((job.get("status") or {}).get("completionTime")) for job in jobs if job_outcome(job) == "Complete"
        ]
        latest = max((moment for moment in finished if moment is not None), default=None)
        current = _time(status.get("lastSuccessfulTime"))
        if latest is not None and (current is None or latest > current):
            status["lastSuccessfulTime"] = _stamp(latest)

    async def _run_due(self, cronjob: Obj, jobs: list[Obj], now: datetime.datetime) -> float | None:
        """Create the Job due now, if any; the seconds until the next scheduled time."""
        spec, status = cronjob["spec"], cronjob["status"]
        try:
            schedule = parse_schedule(spec.get("schedule", ""), spec.get("timeZone") or "")
        except CronError as error:
            # a user error in the spec: nothing is scheduled until the object changes, as upstream
            log.warning("cronjob %s: unparseable schedule %r: %s", key_of(cronjob), spec.get("schedule"), error)
            message = f"unparseable schedule: {quote(spec.get('schedule', ''))} : {error}"
            await self._event(cronjob, "Warning", "UnparseableSchedule", message)
            return None
        following = schedule.next_after(now)
        wait = (following - now).total_seconds() if following is not None else None
        scheduled, missed = most_recent_time(cronjob, schedule, now)
        if scheduled is None:
            return wait
        if missed > MISSED_LIMIT:
            log.warning("cronjob %s: too many missed start times (%d); running the latest", key_of(cronjob), missed)
        name = f"{cronjob['metadata']['name']}-{int(scheduled.timestamp()) // 60}"
        if any(job["metadata"]["name"] == name for job in jobs):
            return wait
        running = [job for job in jobs if not job_outcome(job)]
        policy = spec.get("concurrencyPolicy") or "Allow"
        if running and policy == "Forbid":
            return wait
        if running and policy == "Replace":
            for job in running:
                await self._delete(cronjob, job)
        created = await self._create(cronjob, name, scheduled)
        if created is not None:
            status["lastScheduleTime"] = _stamp(scheduled)
            jobs.append(created)
            self._refresh(status, jobs)
        return wait

    async def _zone_loads(self, cronjob: Obj) -> bool:
        """Upstream's first check: a `spec.timeZone` this process cannot load (its zone data lacks
        it) gets an `UnknownTimeZone` Warning and no run until the object changes."""
        zone = cronjob["spec"].get("timeZone")
        if zone is None or zone_exists(zone):
            return True
        message = f"invalid timeZone: {quote(zone)}: unknown time zone {zone}"
        await self._event(cronjob, "Warning", "UnknownTimeZone", message)
        return False

    async def _create(self, cronjob: Obj, name: str, scheduled: datetime.datetime) -> Obj | None:
        template = cronjob["spec"].get("jobTemplate") or {}
        metadata = template.get("metadata") or {}
        zone_name = cronjob["spec"].get("timeZone")
        local = scheduled.astimezone(zoneinfo.ZoneInfo(zone_name)) if zone_name else scheduled
        body = {
            "apiVersion": f"{self.batch}/v1",
            "kind": "Job",
            "metadata": {
                "name": name,
                "namespace": cronjob["metadata"]["namespace"],
                "labels": dict(metadata.get("labels") or {}),
                "annotations": {**(metadata.get("annotations") or {}), self.scheduled_key: local.isoformat()},
                "ownerReferences": [owner_reference(cronjob, f"{self.batch}/v1", "CronJob")],
            },
            "spec": copy.deepcopy(template.get("spec") or {}),
        }
        try:
            created = await self.context.client.create(self._path("jobs", cronjob["metadata"]["namespace"]), body)
        except ApiError as error:
            if error.reason == "AlreadyExists":
                return None
            await self._event(cronjob, "Warning", "FailedCreate", f"Error creating job: {error}")
            raise
        await self._event(cronjob, "Normal", "SuccessfulCreate", f"Created job {created['metadata']['name']}")
        return created

    async def _delete(self, cronjob: Obj, job: Obj) -> None:
        path = self._path("jobs", job["metadata"]["namespace"], job["metadata"]["name"])
        try:
            await self.context.client.delete(path, {"propagationPolicy": "Background"})
        except ApiError as error:
            if error.reason != "NotFound":
                await self._event(cronjob, "Warning", "FailedDelete", f"Deleted job: {error}")
                raise
        else:
            await self._event(cronjob, "Normal", "SuccessfulDelete", f"Deleted job {job['metadata']['name']}")

    async def _event(self, cronjob: Obj, event_type: str, reason: str, message: str) -> None:
        await self.events.event(cronjob, "CronJob", f"{self.batch}/v1", event_type, reason, message)

    async def _clean_history(self, cronjob: Obj, jobs: list[Obj]) -> None:
        spec = cronjob["spec"]
        for outcome, field, default in (
            ("Complete", "successfulJobsHistoryLimit", 3),
            ("Failed", "failedJobsHistoryLimit", 1),
        ):
            limit = spec.get(field, default)
            if limit is None:
                continue
            finished = sorted(
                (job for job in jobs if job_outcome(job) == outcome and not job["metadata"].get("deletionTimestamp")),
                key=lambda job: ((job.get("status") or {}).get("startTime") or "", job["metadata"]["name"]),
            )
            for job in finished[: max(len(finished) - limit, 0)]:
                await self._delete(cronjob, job)
