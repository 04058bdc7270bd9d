"""What a write through `/status` must satisfy for the workload and networking kinds (upstream
`ValidateDeploymentStatusUpdate`, `ValidateReplicaSetStatusUpdate`, `ValidateStatefulSetStatusUpdate`,
`ValidateDaemonSetStatusUpdate`, `ValidateJobUpdateStatus`, `ValidateHorizontalPodAutoscalerStatusUpdate`,
`ValidateIngressStatusUpdate`, `ValidatePodDisruptionBudgetStatusUpdate`).

Job's status rules are upstream's transition checks with the options its status strategy derives: a rule
about a field is enforced when the write changes that field, so a stored status is never re-judged.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.addresses import ip_errors
from svc.api.validation.conditions import conditions_errors
from svc.api.validation.engine import NEGATIVE, UpdateCheck, UpdateTable, items, lookup, text
from svc.api.validation.job_indexes import format_error, overlap_error
from svc.api.validation.status_core import count, hostname_errors, replica_counts, stored_ingress_ips
from svc.machinery.field_errors import OMITTED, FieldError, duplicate, invalid, required


def _non_negative(*paths: str) -> UpdateCheck:
    def check(new: Any, _: Any, __: str) -> list[FieldError]:
        errors = []
        for path in paths:
            value = lookup(new, path.split("=")[0])
            if type(value) is int and value < 0:
                errors.append(invalid(path.split("=")[-1], value, NEGATIVE))
        return errors

    return UpdateCheck(check)


def _collision_count(new: Any, old: Any, _: str) -> list[FieldError]:
    """`IsDecremented`: the collision counter only grows."""
    value, before = lookup(new, "status.collisionCount"), lookup(old, "status.collisionCount")
    if type(before) is int and (value is None or (type(value) is int and value < before)):
        return [invalid("status.collisionCount", value or 0, "cannot be decremented")]
    return []


def _daemon_set(new: Any, _: Any, __: str) -> list[FieldError]:
    keys = (
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
        "collisionCount",
    )
    return [
        invalid(f"status.{key}", lookup(new, f"status.{key}"), NEGATIVE)
        for key in keys
        if type(lookup(new, f"status.{key}")) is int and lookup(new, f"status.{key}") < 0
    ]


def _true(node: Any, kind: str) -> bool:
    return any(
        text(c, "type") == kind and text(c, "status") == "True" for c in items(lookup(node, "status.conditions"))
    )


def _finished(node: Any) -> bool:
    return _true(node, "Complete") or _true(node, "Failed")


def _uncounted(new: Any) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for key in ("succeeded", "failed"):
        for index, uid in enumerate(items(lookup(new, f"status.uncountedTerminatedPods.{key}"))):
            path = f"status.uncountedTerminatedPods.{key}[{index}]"
            if uid == "":
                errors.append(invalid(path, uid, "must not be empty"))
            elif uid in seen:
                errors.append(duplicate(path, uid))
            else:
                seen.add(uid)
    return errors


def _conditions_error(detail: str) -> FieldError:
    return invalid("status.conditions", OMITTED, detail)


def _index_errors(new: Any, completed_changed: bool, failed_changed: bool) -> list[FieldError]:
    """The interval lists parse and stay below `spec.completions` (when the write changes them)."""
    completions = lookup(new, "spec.completions")
    if type(completions) is not int:
        return []
    errors: list[FieldError] = []
    completed = text(new, "status.completedIndexes")
    problem = format_error(completed, completions) if completed_changed else None
    if problem:
        errors.append(invalid("status.completedIndexes", completed, f"error parsing completedIndexes: {problem}"))
    failed = lookup(new, "status.failedIndexes")
    has_limit = lookup(new, "spec.backoffLimitPerIndex") is not None
    problem = format_error(failed, completions) if failed_changed and has_limit and isinstance(failed, str) else None
    if problem:
        errors.append(invalid("status.failedIndexes", failed, f"error parsing failedIndexes: {problem}"))
    return errors


def _job_status(new: Any, old: Any) -> list[FieldError]:
    """`validateJobStatus`; each transition rule applies when the write changes what it is about (the
    options upstream's status strategy derives from the old and new Job)."""
    status, before = lookup(new, "status") or {}, lookup(old, "status") or {}

    def changed(*keys: str) -> bool:
        return any(status.get(key) != before.get(key) for key in keys)

    def moved(kind: str) -> bool:
        return _true(new, kind) != _true(old, kind)

    complete, failed, finished = _true(new, "Complete"), _true(new, "Failed"), _finished(new)
    finished_changed = finished != _finished(old)
    errors: list[FieldError] = []
    for key in ("active", "succeeded", "failed", "ready", "terminating"):
        value = status.get(key)
        if type(value) is int and value < 0:
            errors.append(invalid(f"status.{key}", value, NEGATIVE))
    errors += _uncounted(new)
    if (moved("Complete") or moved("Failed")) and complete and failed:
        errors.append(_conditions_error("cannot set Complete=True and Failed=true conditions"))
    if (moved("Complete") or moved("FailureTarget")) and complete and _true(new, "FailureTarget"):
        errors.append(_conditions_error("cannot set Complete=True and FailureTarget=true conditions"))
    completion, start = status.get("completionTime"), status.get("startTime")
    if moved("Complete") or changed("completionTime"):
        if completion is not None and not complete:
            detail = "cannot set completionTime when there is no Complete=True condition"
            errors.append(invalid("status.completionTime", completion, detail))
        if completion is None and complete:
            errors.append(required("status.completionTime", "completionTime is required for Complete jobs"))
    if changed("startTime", "completionTime") and start and completion and completion < start:
        errors.append(invalid("status.completionTime", completion, "completionTime cannot be set before startTime"))
    if (moved("Failed") or changed("failedIndexes")) and failed and not _true(new, "FailureTarget"):
        errors.append(_conditions_error("cannot set Failed=True condition without the FailureTarget=true condition"))
    if (moved("Complete") or moved("SuccessCriteriaMet")) and complete and not _true(new, "SuccessCriteriaMet"):
        detail = "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"
        errors.append(_conditions_error(detail))
    if (finished_changed or changed("active")) and count(new, "status.active") > 0 and finished:
        errors.append(invalid("status.active", status["active"], "active>0 is invalid for finished job"))
    idle = lookup(new, "spec.suspend") is True and lookup(new, "spec.completions") == 0
    if (finished_changed or changed("startTime")) and not idle and start is None and finished:
        errors.append(required("status.startTime", "startTime is required for finished job"))
    uncounted = status.get("uncountedTerminatedPods") or {}
    if (finished_changed or changed("uncountedTerminatedPods")) and finished and any(uncounted.values()):
        detail = "uncountedTerminatedPods needs to be empty for finished job"
        errors.append(invalid("status.uncountedTerminatedPods", uncounted, detail))
    errors += _index_errors(new, changed("completedIndexes"), changed("failedIndexes"))
    indexed = text(new, "spec.completionMode") == "Indexed"
    if changed("completedIndexes") and status.get("completedIndexes") and not indexed:
        detail = "cannot set non-empty completedIndexes when non-indexed completion mode"
        errors.append(invalid("status.completedIndexes", status["completedIndexes"], detail))
    no_limit = lookup(new, "spec.backoffLimitPerIndex") is None
    if changed("failedIndexes") and status.get("failedIndexes") is not None and no_limit:
        detail = "cannot set non-null failedIndexes when backoffLimitPerIndex is null"
        errors.append(invalid("status.failedIndexes", status["failedIndexes"], detail))
    failed_indexes, completions = status.get("failedIndexes"), lookup(new, "spec.completions")
    if changed("completedIndexes", "failedIndexes") and type(completions) is int and isinstance(failed_indexes, str):
        overlap = overlap_error(text(new, "status.completedIndexes"), failed_indexes, completions)
        if overlap:
            errors.append(invalid("status.failedIndexes", failed_indexes, overlap))
    terminating = status.get("terminating")
    if (finished_changed or changed("terminating")) and type(terminating) is int and terminating > 0 and finished:
        errors.append(invalid("status.terminating", terminating, "terminating>0 is invalid for finished job"))
    ready = status.get("ready")
    if changed("ready", "active") and type(ready) is int and ready > count(new, "status.active"):
        errors.append(invalid("status.ready", ready, "cannot set more ready pods than active"))
    met = _true(new, "SuccessCriteriaMet")
    if met and failed:
        errors.append(_conditions_error("cannot set SuccessCriteriaMet=True and Failed=true conditions"))
    if met and _true(new, "FailureTarget"):
        errors.append(_conditions_error("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
    if lookup(new, "spec.successPolicy") is not None and not met and complete:
        detail = "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"
        errors.append(_conditions_error(detail))
    return errors


def _job(new: Any, old: Any, _: str) -> list[FieldError]:
    """`ValidateJobStatusUpdate`: the status, then what may not go back."""
    status, before = lookup(new, "status") or {}, lookup(old, "status") or {}
    errors = _job_status(new, old)
    for kind in ("Failed", "Complete", "FailureTarget"):
        if _true(old, kind) and not _true(new, kind):
            errors.append(_conditions_error(f"cannot disable the terminal {kind}=True condition"))
    if count(new, "status.failed") < count(old, "status.failed"):
        errors.append(invalid("status.failed", count(new, "status.failed"), "cannot decrease the failed counter"))
    indexed = text(new, "spec.completionMode") == "Indexed"
    scalable = indexed and lookup(new, "spec.completions") == lookup(new, "spec.parallelism")
    if not scalable and count(new, "status.succeeded") < count(old, "status.succeeded"):
        detail = "cannot decrease the succeeded counter"
        errors.append(invalid("status.succeeded", count(new, "status.succeeded"), detail))
    if before.get("completionTime") and status.get("completionTime") not in (None, before["completionTime"]):
        errors.append(invalid("status.completionTime", status["completionTime"], "completionTime cannot be mutated"))
    started = before.get("startTime")
    if started and status.get("startTime") != started and lookup(new, "spec.suspend") is not True:
        errors.append(required("status.startTime", "startTime cannot be removed for unsuspended job"))
    if _true(old, "SuccessCriteriaMet") and not _true(new, "SuccessCriteriaMet"):
        errors.append(_conditions_error("cannot disable the SuccessCriteriaMet=True condition"))
    if _true(old, "Complete") and not _true(old, "SuccessCriteriaMet") and _true(new, "SuccessCriteriaMet"):
        detail = "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"
        errors.append(_conditions_error(detail))
    return errors


def _ingress(new: Any, old: Any, _: str) -> list[FieldError]:
    """`ValidateIngressLoadBalancerStatus`: each reported point is a valid address (one already stored
    checked as leniently as then) or DNS name."""
    stored = stored_ingress_ips(old)
    errors: list[FieldError] = []
    for index, point in enumerate(items(lookup(new, "status.loadBalancer.ingress"))):
        where, ip = f"status.loadBalancer.ingress[{index}]", text(point, "ip")
        if ip:
            errors += [invalid(f"{where}.ip", ip, message) for message in ip_errors(ip, stored)]
        errors += hostname_errors(point, f"{where}.hostname")
    return errors


def _pdb(new: Any, _: Any, __: str) -> list[FieldError]:
    return conditions_errors(lookup(new, "status.conditions"), "status.conditions")


_APPS_COUNTS: Final = ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas")

STATUS: Final[dict[tuple[str, str], UpdateTable]] = {
    ("apps", "Deployment"): (
        UpdateCheck(replica_counts(("observedGeneration", *_APPS_COUNTS, "terminatingReplicas", "collisionCount"))),
        UpdateCheck(_collision_count),
    ),
    ("apps", "ReplicaSet"): (
        UpdateCheck(
            replica_counts(
                (
                    "replicas",
                    "fullyLabeledReplicas",
                    "readyReplicas",
                    "availableReplicas",
                    "observedGeneration",
                    "terminatingReplicas",
                )
            )
        ),
    ),
    ("apps", "StatefulSet"): (
        UpdateCheck(
            replica_counts(
                (
                    "replicas",
                    "readyReplicas",
                    "currentReplicas",
                    "updatedReplicas",
                    "availableReplicas",
                    "observedGeneration",
                    "collisionCount",
                ),
                ready_path="status.readyReplicas",
            )
        ),
        UpdateCheck(_collision_count),
    ),
    ("apps", "DaemonSet"): (UpdateCheck(_daemon_set), UpdateCheck(_collision_count)),
    ("batch", "Job"): (UpdateCheck(_job),),
    ("autoscaling", "HorizontalPodAutoscaler"): (
        # upstream names the second path `desiredReplicasa`
        _non_negative("status.currentReplicas", "status.desiredReplicas=status.desiredReplicasa"),
    ),
    ("networking.k8s.io", "Ingress"): (UpdateCheck(_ingress),),
    ("policy", "PodDisruptionBudget"): (
        UpdateCheck(_pdb),
        _non_negative(
            "status.disruptionsAllowed", "status.currentHealthy", "status.desiredHealthy", "status.expectedPods"
        ),
    ),
}
