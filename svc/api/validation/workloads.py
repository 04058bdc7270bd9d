"""Workloads: ReplicationController, the apps kinds and ControllerRevision (`pkg/apis/apps/validation`), Job and CronJob
(`pkg/apis/batch/validation`), each a table over its spec plus the template and selector logic.

A workload's pod template is validated as a pod template, then checked against its selector (upstream's
"`selector` does not match template `labels`") and the restart policy the controller needs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.engine import (
    IMMUTABLE,
    NEGATIVE,
    At,
    Check,
    Immutable,
    KindRules,
    OneOf,
    Range,
    Table,
    UpdateCheck,
    go_struct,
    join,
    lookup,
    mapping,
    text,
)
from svc.api.validation.pods import POD_TEMPLATE_SPEC
from svc.api.validation.ratchets import POD_RATCHETS
from svc.machinery import cron
from svc.machinery.field_errors import FieldError, Rendered, forbidden, invalid, not_supported, required
from svc.machinery.gotext import json_marshal, json_string
from svc.machinery.labels import LabelSelector, SelectorError, label_selector_from_dict, validate_label_selector

MATCH_ERROR: Final = "`selector` does not match template `labels`"


def selector_value(selector: Any) -> Any:
    """A metav1.LabelSelector as upstream prints it: its JSON, members in declaration order, empty ones left out."""
    if not isinstance(selector, Mapping):
        return selector
    members = [
        f"{json_string(key)}:{json_marshal(selector[key])}"
        for key in ("matchLabels", "matchExpressions")
        if selector.get(key)
    ]
    return Rendered("{" + ",".join(members) + "}")


def _labels(template: Any) -> dict[str, Any]:
    labels = lookup(template, "metadata.labels")
    return labels if isinstance(labels, dict) else {}


def _shown_labels(template: Any) -> Any:
    """Template labels as upstream prints them: a missing map is Go's nil, `null`."""
    labels = lookup(template, "metadata.labels")
    return labels if isinstance(labels, dict) else None


def _template_labels_match(spec: Any, base: str, selector: Any) -> list[FieldError]:
    try:
        parsed = label_selector_from_dict(selector)
    except SelectorError:
        return [invalid(join(base, "selector"), selector_value(selector), "invalid label selector")]
    return _template_labels_selected(spec, base, parsed)


def _template_labels_selected(spec: Any, base: str, parsed: LabelSelector) -> list[FieldError]:
    """The template's labels must be selected by the (parsed) selector, unless it is empty."""
    template = lookup(spec, "template")
    if not parsed.empty and not parsed.matches(_labels(template)):
        return [invalid(join(base, "template.metadata.labels"), _shown_labels(template), MATCH_ERROR)]
    return []


def _selector_rules(kind: str, *, required_selector: bool = True) -> Check:
    """A metav1 selector: required, well formed and not empty (upstream's wording names the kind)."""

    def check(spec: Any, base: str) -> list[FieldError]:
        selector = lookup(spec, "selector")
        path = join(base, "selector")
        if selector is None:
            return [required(path)] if required_selector else []
        errors = validate_label_selector(selector, path)
        if isinstance(selector, Mapping) and not selector.get("matchLabels") and not selector.get("matchExpressions"):
            errors.append(invalid(path, selector_value(selector), f"empty selector is invalid for {kind}"))
        return errors

    return Check(check)


def _always_restart(kind: str, *, deadline_forbidden: bool) -> Check:
    """Controllers that keep pods running need `restartPolicy: Always` and no active deadline."""

    def check(spec: Any, base: str) -> list[FieldError]:
        errors: list[FieldError] = []
        policy = lookup(spec, "template.spec.restartPolicy")
        if policy != "Always":
            errors.append(not_supported(join(base, "template.spec.restartPolicy"), policy or "", ("Always",)))
        deadline = lookup(spec, "template.spec.activeDeadlineSeconds")
        if deadline is not None:
            path = join(base, "template.spec.activeDeadlineSeconds")
            detail = f"activeDeadlineSeconds in {kind} is not Supported"
            errors.append(forbidden(path, detail) if deadline_forbidden else invalid(path, deadline, detail))
        return errors

    return Check(check)


# Rules the template checks below run on every write: built (and compiled) once.
_TEMPLATE: Final = At("template", POD_TEMPLATE_SPEC)
_REPLICAS: Final = Range("replicas")
_PARTITION: Final = Range("rollingUpdate.partition")
_RESTART: Final = {
    kind: _always_restart(kind, deadline_forbidden=forbidden)
    for kind, forbidden in (
        ("ReplicaSet", False),
        ("ReplicationController", True),
        ("DaemonSet", False),
        ("StatefulSet", True),
    )
}


def _replica_set_template(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidatePodTemplateSpecForReplicaSet`, also used for Deployments."""
    selector = lookup(spec, "selector")
    try:
        parsed = label_selector_from_dict(selector)
    except SelectorError:
        return [invalid(join(base, "selector"), selector_value(selector), "invalid label selector")]
    errors = _template_labels_selected(spec, base, parsed)
    errors += _TEMPLATE.run(spec, base)
    return errors + _RESTART["ReplicaSet"].run(spec, base)


# --- ReplicationController --------------------------------------------------------------------


def _rc_selector_and_template(spec: Any, base: str) -> list[FieldError]:
    selector = lookup(spec, "selector")
    errors = [] if selector else [required(join(base, "selector"))]
    errors += _REPLICAS.run(spec, base)
    template = lookup(spec, "template")
    if template is None:
        return [*errors, required(join(base, "template"))]
    labels = _labels(template)
    if isinstance(selector, Mapping) and selector and any(labels.get(k) != v for k, v in selector.items()):
        errors.append(invalid(join(base, "template.metadata.labels"), _shown_labels(template), MATCH_ERROR))
    errors += _TEMPLATE.run(spec, base)
    return errors + _RESTART["ReplicationController"].run(spec, base)


REPLICATION_CONTROLLER = KindRules(
    create=(At("spec", (Range("minReadySeconds"), Check(_rc_selector_and_template))),), ratchets=POD_RATCHETS
)

# --- apps ---------------------------------------------------------------------------------------

_PERCENT: Final = re.compile(r"[0-9]+%")
_PERCENT_ERROR: Final = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%',  regex used for validation is '[0-9]+%')"
)


def int_or_percent_errors(value: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidatePositiveIntOrPercent`."""
    if isinstance(value, str):
        return [] if _PERCENT.fullmatch(value) else [invalid(path, value, _PERCENT_ERROR)]
    if isinstance(value, int) and value < 0:
        return [invalid(path, value, NEGATIVE)]
    return []


def _int_or_percent_value(value: Any) -> int:
    if isinstance(value, str) and _PERCENT.fullmatch(value):
        return int(value[:-1])
    return value if isinstance(value, int) else 0


def _rolling_update_deployment(rolling: Any, path: str) -> list[FieldError]:
    unavailable, surge = lookup(rolling, "maxUnavailable"), lookup(rolling, "maxSurge")
    errors = int_or_percent_errors(unavailable, f"{path}.maxUnavailable") + int_or_percent_errors(
        surge, f"{path}.maxSurge"
    )
    if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
        errors.append(invalid(f"{path}.maxUnavailable", unavailable, "may not be 0 when `maxSurge` is 0"))
    return errors + not_more_than_100(unavailable, f"{path}.maxUnavailable")


def not_more_than_100(value: Any, path: str) -> list[FieldError]:
    """Upstream's `IsNotMoreThan100Percent` (integers are not percentages and always pass)."""
    if isinstance(value, str) and _PERCENT.fullmatch(value) and int(value[:-1]) > 100:
        return [invalid(path, value, "must not be greater than 100%")]
    return []


def _deployment_strategy(spec: Any, base: str) -> list[FieldError]:
    path = join(base, "strategy")
    strategy = mapping(spec, "strategy")
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            detail = "may not be specified when strategy `type` is 'Recreate'"
            return [forbidden(f"{path}.rollingUpdate", detail)]
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return [required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
        return _rolling_update_deployment(rolling, f"{path}.rollingUpdate")
    return [not_supported(path, _strategy_value(strategy), ("Recreate", "RollingUpdate"))]


def _progress_deadline(spec: Any, base: str) -> list[FieldError]:
    deadline = lookup(spec, "progressDeadlineSeconds")
    if isinstance(deadline, int) and deadline <= (lookup(spec, "minReadySeconds") or 0):
        return [invalid(join(base, "progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds")]
    return []


DEPLOYMENT_SPEC: Table = (
    Range("replicas"),
    _selector_rules("deployment"),
    Check(_replica_set_template),
    Check(_deployment_strategy),
    Range("minReadySeconds"),
    Range("revisionHistoryLimit"),
    Range("progressDeadlineSeconds"),
    Check(_progress_deadline),
)

REPLICA_SET_SPEC: Table = (
    Range("replicas"),
    Range("minReadySeconds"),
    _selector_rules("deployment"),
    Check(_replica_set_template),
)


def _daemon_set_template(spec: Any, base: str) -> list[FieldError]:
    errors = _template_labels_match(spec, base, lookup(spec, "selector"))
    selector = lookup(spec, "selector")
    if isinstance(selector, Mapping) and not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(
            invalid(join(base, "selector"), selector_value(selector), "empty selector is invalid for daemonset")
        )
    errors += _TEMPLATE.run(spec, base)
    return errors + _RESTART["DaemonSet"].run(spec, base)


def _strategy_value(strategy: dict[str, Any]) -> Rendered:
    """An update strategy as upstream prints it in its errors."""
    return go_struct(strategy, ("type", "rollingUpdate"), {"type": ""})


def _daemon_set_strategy(spec: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidateDaemonSetUpdateStrategy`: a rolling update surges or drops pods, not both."""
    path = join(base, "updateStrategy")
    strategy = mapping(spec, "updateStrategy")
    kind = strategy.get("type")
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        return [not_supported(path, _strategy_value(strategy), ("RollingUpdate", "OnDelete"))]
    rolling = strategy.get("rollingUpdate")
    if rolling is None:
        return [required(f"{path}.rollingUpdate")]
    where = f"{path}.rollingUpdate"
    unavailable, surge = lookup(rolling, "maxUnavailable"), lookup(rolling, "maxSurge")
    errors = int_or_percent_errors(unavailable, f"{where}.maxUnavailable")
    errors += int_or_percent_errors(surge, f"{where}.maxSurge")
    errors += not_more_than_100(unavailable, f"{where}.maxUnavailable") + not_more_than_100(surge, f"{where}.maxSurge")
    has_unavailable, has_surge = _int_or_percent_value(unavailable) != 0, _int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        errors.append(invalid(f"{where}.maxSurge", surge, "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errors.append(required(f"{where}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    return errors


DAEMON_SET_SPEC: Table = (
    Check(lambda spec, base: validate_label_selector(lookup(spec, "selector"), join(base, "selector"))),
    Check(_daemon_set_template),
    Range("minReadySeconds"),
    Range("templateGeneration"),
    Check(_daemon_set_strategy),
    Range("revisionHistoryLimit"),
)


def _stateful_set_policies(spec: Any, base: str) -> list[FieldError]:
    errors: list[FieldError] = []
    policy = lookup(spec, "podManagementPolicy")
    if not policy:
        errors.append(required(join(base, "podManagementPolicy")))
    elif policy not in ("OrderedReady", "Parallel"):
        errors.append(invalid(join(base, "podManagementPolicy"), policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = mapping(spec, "updateStrategy")
    kind, path = strategy.get("type"), join(base, "updateStrategy")
    if not kind:
        errors.append(required(path))
    elif kind == "OnDelete" and strategy.get("rollingUpdate") is not None:
        rolling = go_struct(strategy["rollingUpdate"], ("partition", "maxUnavailable"))
        errors.append(invalid(f"{path}.rollingUpdate", rolling, "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind == "RollingUpdate":
        errors += _PARTITION.run(strategy, path)
    elif kind != "OnDelete":
        errors.append(invalid(path, _strategy_value(strategy), "must be 'RollingUpdate' or 'OnDelete'"))
    return errors


def _stateful_set_template(spec: Any, base: str) -> list[FieldError]:
    selector = lookup(spec, "selector")
    try:
        parsed = label_selector_from_dict(selector)
    except SelectorError:
        return [invalid(join(base, "selector"), selector_value(selector), "")]
    errors = _template_labels_selected(spec, base, parsed) if selector is not None else []
    errors += _TEMPLATE.run(spec, base)
    return errors + _RESTART["StatefulSet"].run(spec, base)


STATEFUL_SET_SPEC: Table = (
    Check(_stateful_set_policies),
    Range("ordinals.start"),
    Range("replicas"),
    Range("minReadySeconds"),
    _selector_rules("statefulset"),
    Check(_stateful_set_template),
)

_STATEFUL_SET_MUTABLE: Final = (
    "replicas",
    "template",
    "updateStrategy",
    "minReadySeconds",
    "ordinals",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
)
STATEFUL_SET_UPDATE_ERROR: Final = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
    "'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
)


def _stateful_set_update(new: Any, old: Any, base: str) -> list[FieldError]:
    def frozen(obj: Any) -> dict[str, Any]:
        return {key: value for key, value in mapping(obj, "spec").items() if key not in _STATEFUL_SET_MUTABLE}

    return [forbidden(join(base, "spec"), STATEFUL_SET_UPDATE_ERROR)] if frozen(new) != frozen(old) else []


_IMMUTABLE_SELECTOR = Immutable("spec.selector", selector_value)

DEPLOYMENT = KindRules(create=(At("spec", DEPLOYMENT_SPEC),), update=(_IMMUTABLE_SELECTOR,), ratchets=POD_RATCHETS)
REPLICA_SET = KindRules(create=(At("spec", REPLICA_SET_SPEC),), update=(_IMMUTABLE_SELECTOR,), ratchets=POD_RATCHETS)
DAEMON_SET = KindRules(create=(At("spec", DAEMON_SET_SPEC),), update=(_IMMUTABLE_SELECTOR,), ratchets=POD_RATCHETS)
STATEFUL_SET = KindRules(
    create=(At("spec", STATEFUL_SET_SPEC),), update=(UpdateCheck(_stateful_set_update),), ratchets=POD_RATCHETS
)

# --- batch --------------------------------------------------------------------------------------


def _job_restart_policy(spec: Any, base: str) -> list[FieldError]:
    """Pods of a Job finish: the pod default `Always` (or nothing) is refused, naming the two valid values."""
    policy = lookup(spec, "template.spec.restartPolicy") or ""
    path = join(base, "template.spec.restartPolicy")
    if policy in ("Always", ""):
        return [required(path, 'valid values: "OnFailure", "Never"')]
    if policy not in ("OnFailure", "Never"):
        return [not_supported(path, policy, ("OnFailure", "Never"))]
    if lookup(spec, "podFailurePolicy") is not None and policy != "Never":
        return [invalid(path, policy, 'only "Never" is supported when podFailurePolicy is specified')]
    return []


def _indexed_only(spec: Any, base: str) -> list[FieldError]:
    errors: list[FieldError] = []
    mode = lookup(spec, "completionMode")
    if mode == "Indexed" and lookup(spec, "completions") is None:
        errors.append(required(join(base, "completions"), "when completion mode is Indexed"))
    if mode in (None, "NonIndexed"):
        for key in ("backoffLimitPerIndex", "maxFailedIndexes"):
            value = lookup(spec, key)
            if value is not None:
                errors.append(invalid(join(base, key), value, "requires indexed completion mode"))
    return errors


# Upstream's `validateJobSpec`: what a Job and a CronJob's job template share.
JOB_SPEC_COMMON: Table = (
    Range("parallelism"),
    Range("completions"),
    Range("activeDeadlineSeconds"),
    Range("backoffLimit"),
    Range("ttlSecondsAfterFinished"),
    Range("backoffLimitPerIndex"),
    Range("maxFailedIndexes"),
    OneOf("completionMode", ("NonIndexed", "Indexed"), optional=True),
    Check(_indexed_only),
    At("template", POD_TEMPLATE_SPEC),
    Check(_job_restart_policy),
)


def _job_selector(spec: Any, base: str) -> list[FieldError]:
    """A Job's selector, when set, must be valid and select the pods of its template.

    Upstream requires one, generated from the Job's uid unless `manualSelector` is set; the selector is not
    generated here, so a Job without one is accepted.
    """
    selector = lookup(spec, "selector")
    if selector is None:
        return []
    return validate_label_selector(selector, join(base, "selector")) + _template_labels_match(spec, base, selector)


JOB_SPEC: Table = (*JOB_SPEC_COMMON, Check(_job_selector))


def _generated_selector_only(spec: Any, base: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if lookup(spec, "selector") is not None:
        shown = selector_value(lookup(spec, "selector"))
        errors.append(invalid(join(base, "selector"), shown, "`selector` will be auto-generated"))
    if lookup(spec, "manualSelector") is True:
        errors.append(not_supported(join(base, "manualSelector"), True, ("nil", "false")))
    return errors


JOB_TEMPLATE_SPEC: Table = (*JOB_SPEC_COMMON, Check(_generated_selector_only))


def _job_spec_update(new: Any, old: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidateJobSpecUpdate`: the selector, the pod template and the completion mode are fixed."""
    errors: list[FieldError] = []
    path = join(base, "spec")
    if lookup(new, "spec.selector") != lookup(old, "spec.selector"):
        errors.append(invalid(f"{path}.selector", selector_value(lookup(new, "spec.selector")), IMMUTABLE))
    if lookup(new, "spec.template") != lookup(old, "spec.template"):
        errors.append(invalid(f"{path}.template", lookup(new, "spec.template"), IMMUTABLE))
    if lookup(new, "spec.completionMode") != lookup(old, "spec.completionMode"):
        errors.append(invalid(f"{path}.completionMode", lookup(new, "spec.completionMode"), IMMUTABLE))
    return errors


JOB = KindRules(create=(At("spec", JOB_SPEC),), update=(UpdateCheck(_job_spec_update),), ratchets=POD_RATCHETS)


def _schedule(spec: Any, base: str) -> list[FieldError]:
    schedule = text(spec, "schedule")
    path = join(base, "schedule")
    if not schedule:
        return [required(path)]
    errors = [invalid(path, schedule, message) for message in cron.schedule_errors(schedule)]
    if "TZ" in schedule:
        errors.append(invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return errors


def _time_zone(spec: Any, base: str) -> list[FieldError]:
    zone = lookup(spec, "timeZone")
    if not isinstance(zone, str):
        return []
    return [invalid(join(base, "timeZone"), zone, message) for message in cron.time_zone_errors(zone)]


CRON_JOB_SPEC: Table = (
    Check(_schedule),
    Range("startingDeadlineSeconds"),
    Check(_time_zone),
    OneOf("concurrencyPolicy", ("Allow", "Forbid", "Replace")),
    At("jobTemplate", (At("spec", JOB_TEMPLATE_SPEC),)),
    Range("successfulJobsHistoryLimit"),
    Range("failedJobsHistoryLimit"),
)


def _cron_job_name(obj: Any, base: str) -> list[FieldError]:
    """A CronJob's name leaves room for the suffix its Jobs get: at most 52 characters."""
    name = lookup(obj, "metadata.name")
    if isinstance(name, str) and len(name) > 52:
        return [invalid("metadata.name", name, "must be no more than 52 characters")]
    return []


CRON_JOB = KindRules(create=(Check(_cron_job_name), At("spec", CRON_JOB_SPEC)), ratchets=POD_RATCHETS)


def _revision_data(obj: Any, _: str) -> list[FieldError]:
    """`data` may hold any object, even an empty one, but must be present (upstream checks for a nil extension)."""
    return [required("data", "data is mandatory")] if lookup(obj, "data") is None else []


CONTROLLER_REVISION = KindRules(create=(Check(_revision_data), Range("revision")), update=(Immutable("data"),))

RULES: Final[dict[tuple[str, str], KindRules]] = {
    ("", "ReplicationController"): REPLICATION_CONTROLLER,
    ("apps", "Deployment"): DEPLOYMENT,
    ("apps", "ReplicaSet"): REPLICA_SET,
    ("apps", "DaemonSet"): DAEMON_SET,
    ("apps", "StatefulSet"): STATEFUL_SET,
    ("apps", "ControllerRevision"): CONTROLLER_REVISION,
    ("batch", "Job"): JOB,
    ("batch", "CronJob"): CRON_JOB,
}
