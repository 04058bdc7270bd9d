"""The cronjob controller on the fake clock: Jobs at scheduled times, concurrency, history."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.controllers.cronjob import CronJobController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
UID = "cj-uid"
# The fake clock starts at 1,000 s after the epoch: 00:16:40 on 1970-01-01.
CREATED = "1970-01-01T00:00:00Z"


def cronjob(**spec: Any) -> Obj:
    return {
        "metadata": {"name": "tick", "namespace": "team", "uid": UID, "creationTimestamp": CREATED},
        "spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {"metadata": {"labels": {"app": "tick"}}, "spec": {"template": {"spec": {}}}},
            **spec,
        },
        "status": {},
    }


def job(name: str, *, done: str = "", started: str = "1970-01-01T00:00:00Z") -> Obj:
    conditions = [{"type": done, "status": "True"}] if done else []
    return {
        "metadata": {
            "name": name,
            "namespace": "team",
            "uid": f"{name}-uid",
            "ownerReferences": [{"kind": "CronJob", "name": "tick", "uid": UID, "controller": True}],
        },
        "status": {"conditions": conditions, "startTime": started},
    }


def run(owner: Obj, jobs: list[Obj]) -> Any:
    async def scenario() -> Any:
        context, client = make_context()
        controller = CronJobController(context)
        controller.cronjobs.replace([owner])
        controller.jobs.replace(jobs)
        await controller.sync("team/tick")
        return client

    return asyncio.run(scenario())


def calls(client: Any, verb: str) -> list[tuple[str, Obj | None]]:
    return [(path, body) for called, path, body in client.calls if called == verb]


def test_the_latest_due_time_gets_its_job_named_by_minutes_since_the_epoch():
    client = run(cronjob(), [])
    (path, body), *_ = calls(client, "create")
    assert path == "/apis/batch/v1/namespaces/team/jobs"
    assert body["metadata"]["name"] == "tick-15"  # 00:15, the last */5 time before 00:16:40
    assert body["metadata"]["annotations"] == {"batch.svc.io/cronjob-scheduled-timestamp": "1970-01-01T00:15:00+00:00"}
    status = calls(client, "update")[-1][1]["status"]
    assert status["lastScheduleTime"] == "1970-01-01T00:15:00Z"
    assert status["active"][0]["name"] == "tick-15"


def test_forbid_skips_a_run_while_one_is_active():
    client = run(cronjob(concurrencyPolicy="Forbid"), [job("tick-10")])
    assert calls(client, "create") == []


def test_replace_deletes_the_running_job_first():
    client = run(cronjob(concurrencyPolicy="Replace"), [job("tick-10")])
    assert [path for path, _ in calls(client, "delete")] == ["/apis/batch/v1/namespaces/team/jobs/tick-10"]
    assert len(calls(client, "create")) == 1


def test_a_suspended_cronjob_creates_nothing():
    assert calls(run(cronjob(suspend=True), []), "create") == []


def test_a_missed_starting_deadline_skips_the_run():
    assert calls(run(cronjob(startingDeadlineSeconds=60), []), "create") == []


def test_old_successful_jobs_beyond_the_history_limit_are_deleted():
    jobs = [job(f"tick-{minute}", done="Complete", started=f"1970-01-01T00:{minute:02d}:00Z") for minute in (0, 5, 10)]
    client = run(cronjob(successfulJobsHistoryLimit=1), [*jobs, job("tick-15")])
    deleted = sorted(path.rsplit("/", 1)[1] for path, _ in calls(client, "delete"))
    assert deleted == ["tick-0", "tick-5"]


def warnings(client: Any) -> list[tuple[str, str, str]]:
    return [(body["type"], body["reason"], body["message"]) for _, _, body in client.events]


def test_a_time_zone_this_process_cannot_load_gets_a_warning_and_no_run():
    client = run(cronjob(timeZone="Mars/Olympus"), [])
    assert warnings(client) == [
        ("Warning", "UnknownTimeZone", 'invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus')
    ]
    assert calls(client, "create") == []


def test_an_unparseable_schedule_gets_a_warning_and_no_run():
    client = run(cronjob(schedule="*/5 * *"), [])
    assert warnings(client) == [
        (
            "Warning",
            "UnparseableSchedule",
            'unparseable schedule: "*/5 * *" : expected exactly 5 fields, found 3: [*/5 * *]',
        )
    ]
    assert calls(client, "create") == []
