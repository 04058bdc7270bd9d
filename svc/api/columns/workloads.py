"""Columns of the workload controllers: deployments, replica sets, stateful sets, daemon sets, jobs, cron
jobs and replication controllers."""

from __future__ import annotations

from collections.abc import Callable

from svc.api.columns import descriptions, timing
from svc.api.columns.common import age_column, container_columns, field, items, name_column, number, text
from svc.api.columns.selectors import format_labels, format_selector, selector_string
from svc.wire.views import Column, Obj

_READY_DESCRIPTION = "Number of the pod with ready state"


def _count(*path: str) -> Callable[[Obj], int]:
    return lambda obj: number(obj, *path)


def _ready_of_desired(obj: Obj) -> str:
    return f"{number(obj, 'status', 'readyReplicas')}/{number(obj, 'spec', 'replicas')}"


def _deployment_selector(obj: Obj) -> str:
    written = selector_string(field(obj, "spec", "selector"))
    return "<invalid>" if written is None else written


DEPLOYMENT = (
    name_column(),
    Column("Ready", "string", _ready_of_desired, description=_READY_DESCRIPTION),
    Column("Up-to-date", "string", _count("status", "updatedReplicas"), description=descriptions.DEPLOYMENT_UPDATED),
    Column("Available", "string", _count("status", "availableReplicas"), description=descriptions.DEPLOYMENT_AVAILABLE),
    age_column(),
    *container_columns("spec", "template"),
    Column("Selector", "string", _deployment_selector, description=descriptions.DEPLOYMENT_SELECTOR, priority=1),
)

REPLICA_SET = (
    name_column(),
    Column("Desired", "integer", _count("spec", "replicas"), description=descriptions.RS_SPEC_REPLICAS),
    Column("Current", "integer", _count("status", "replicas"), description=descriptions.RS_STATUS_REPLICAS),
    Column("Ready", "integer", _count("status", "readyReplicas"), description=descriptions.RS_READY_REPLICAS),
    age_column(),
    *container_columns("spec", "template"),
    Column(
        "Selector",
        "string",
        lambda obj: format_selector(field(obj, "spec", "selector")),
        description=descriptions.RS_SELECTOR,
        priority=1,
    ),
)

REPLICATION_CONTROLLER = (
    name_column(),
    Column("Desired", "integer", _count("spec", "replicas"), description=descriptions.RC_SPEC_REPLICAS),
    Column("Current", "integer", _count("status", "replicas"), description=descriptions.RC_STATUS_REPLICAS),
    Column("Ready", "integer", _count("status", "readyReplicas"), description=descriptions.RC_READY_REPLICAS),
    age_column(),
    *container_columns("spec", "template"),
    Column(
        "Selector",
        "string",
        lambda obj: format_labels(field(obj, "spec", "selector")),
        description=descriptions.RC_SELECTOR,
        priority=1,
    ),
)

STATEFUL_SET = (
    name_column(),
    Column("Ready", "string", _ready_of_desired, description=_READY_DESCRIPTION),
    age_column(),
    *container_columns("spec", "template"),
)

DAEMON_SET = (
    name_column(),
    Column("Desired", "integer", _count("status", "desiredNumberScheduled"), description=descriptions.DS_DESIRED),
    Column("Current", "integer", _count("status", "currentNumberScheduled"), description=descriptions.DS_CURRENT),
    Column("Ready", "integer", _count("status", "numberReady"), description=descriptions.DS_READY),
    Column("Up-to-date", "integer", _count("status", "updatedNumberScheduled"), description=descriptions.DS_UPDATED),
    Column("Available", "integer", _count("status", "numberAvailable"), description=descriptions.DS_AVAILABLE),
    Column(
        "Node Selector",
        "string",
        lambda obj: format_labels(field(obj, "spec", "template", "spec", "nodeSelector")),
        description=descriptions.POD_NODE_SELECTOR,
    ),
    age_column(),
    *container_columns("spec", "template"),
    Column(
        "Selector",
        "string",
        lambda obj: format_selector(field(obj, "spec", "selector")),
        description=descriptions.DS_SELECTOR,
        priority=1,
    ),
)


def _job_status(job: Obj) -> str:
    """The first of Complete, Failed, (deleting), Suspended, FailureTarget, SuccessCriteriaMet that holds."""
    conditions = items(job, "status", "conditions")

    def holds(kind: str) -> bool:
        first = next((condition for condition in conditions if text(condition, "type") == kind), None)
        return first is not None and text(first, "status") == "True"

    if holds("Complete"):
        return "Complete"
    if holds("Failed"):
        return "Failed"
    if field(job, "metadata", "deletionTimestamp") is not None:
        return "Terminating"
    for kind in ("Suspended", "FailureTarget", "SuccessCriteriaMet"):
        if holds(kind):
            return kind
    return "Running"


def _job_completions(job: Obj) -> str:
    succeeded = number(job, "status", "succeeded")
    if isinstance(field(job, "spec", "completions"), int):
        return f"{succeeded}/{number(job, 'spec', 'completions')}"
    parallelism = number(job, "spec", "parallelism")
    if parallelism > 1:
        return f"{succeeded}/1 of {parallelism}"
    return f"{succeeded}/1"


def _job_duration(job: Obj) -> str:
    started = timing.parse_time(field(job, "status", "startTime"))
    if started is None:
        return ""
    completed = timing.parse_time(field(job, "status", "completionTime"))
    if completed is None:
        return timing.elapsed(started)
    return timing.human_duration(completed - started)


JOB = (
    name_column(),
    Column("Status", "string", _job_status, description="Status of the job."),
    Column("Completions", "string", _job_completions, description=descriptions.JOB_SUCCEEDED),
    Column("Duration", "string", _job_duration, description="Time required to complete the job."),
    age_column(),
    *container_columns("spec", "template"),
    Column(
        "Selector",
        "string",
        lambda obj: format_selector(field(obj, "spec", "selector")),
        description=descriptions.JOB_SELECTOR,
        priority=1,
    ),
)


def _bool_or_unset(value: object) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return "<unset>"


def _last_schedule(cron_job: Obj) -> str:
    last = field(cron_job, "status", "lastScheduleTime")
    return "<none>" if last is None else timing.since(last)


CRON_JOB = (
    name_column(),
    Column("Schedule", "string", lambda obj: text(obj, "spec", "schedule"), description=descriptions.CRONJOB_SCHEDULE),
    Column(
        "Timezone",
        "string",
        lambda obj: text(obj, "spec", "timeZone") if field(obj, "spec", "timeZone") is not None else "<none>",
        description=descriptions.CRONJOB_TIME_ZONE,
    ),
    Column(
        "Suspend",
        "boolean",
        lambda obj: _bool_or_unset(field(obj, "spec", "suspend")),
        description=descriptions.CRONJOB_SUSPEND,
    ),
    Column(
        "Active",
        "integer",
        lambda obj: len(items(obj, "status", "active")),
        description=descriptions.CRONJOB_ACTIVE,
    ),
    Column("Last Schedule", "string", _last_schedule, description=descriptions.CRONJOB_LAST_SCHEDULE),
    age_column(),
    *container_columns("spec", "jobTemplate", "spec", "template"),
    Column(
        "Selector",
        "string",
        lambda obj: format_selector(field(obj, "spec", "jobTemplate", "spec", "selector")),
        description=descriptions.JOB_SELECTOR,
        priority=1,
    ),
)
