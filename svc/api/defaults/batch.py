"""Jobs and CronJobs.

A CronJob's job template gets the pod template's defaults and the failure-policy pattern default, but
not a Job's own spec defaults (completions, backoff limit, ...): upstream defaults those when the
controller creates the Job. A Job's labels default to its template's labels; upstream defaults again
when it reads a Job back from storage, so labels its strategy generates on the template show up too.
"""

from __future__ import annotations

from typing import Final

from svc.api.defaults.pod_spec import inherit_labels, template, template_labels
from svc.api.defaults.walk import Obj, child, entries, fill, fill_nil

BACKOFF_LIMIT: Final = 6
# With a per-index backoff limit the global limit is effectively unlimited (MaxInt32).
UNLIMITED_BACKOFF: Final = 2**31 - 1


def _failure_policy(spec: Obj) -> None:
    for rule in entries(child(spec, "podFailurePolicy"), "rules"):
        for pattern in entries(rule, "onPodConditions"):
            fill(pattern, "status", "True")


def _job_spec(spec: Obj) -> None:
    template(child(spec, "template"))
    _failure_policy(spec)


def job(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    fill_nil(spec, "parallelism", 1)
    fill_nil(spec, "backoffLimit", BACKOFF_LIMIT if spec.get("backoffLimitPerIndex") is None else UNLIMITED_BACKOFF)
    inherit_labels(obj, template_labels(child(spec, "template")))
    fill_nil(spec, "completionMode", "NonIndexed")
    fill_nil(spec, "suspend", False)
    # With a failure policy, replacements wait for the failed pod to terminate fully.
    replacement = "TerminatingOrFailed" if spec.get("podFailurePolicy") is None else "Failed"
    fill_nil(spec, "podReplacementPolicy", replacement)
    fill_nil(spec, "manualSelector", False)
    _job_spec(spec)


def cron_job(obj: Obj) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    fill(spec, "concurrencyPolicy", "Allow")
    fill_nil(spec, "suspend", False)
    fill_nil(spec, "successfulJobsHistoryLimit", 3)
    fill_nil(spec, "failedJobsHistoryLimit", 1)
    job_spec = child(child(spec, "jobTemplate"), "spec")
    if job_spec is not None:
        _job_spec(job_spec)
