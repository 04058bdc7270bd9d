"""Workload validation: ReplicationController, the apps kinds, Job and CronJob."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, FORBIDDEN = "FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden"
NOT_SUPPORTED = "FieldValueNotSupported"
MISMATCH = "`selector` does not match template `labels`"
CONTAINERS = [{"name": "app", "image": "nginx:1.27"}]


def _workload(api_version: str, kind: str, **spec: Any) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": CONTAINERS}}
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template, **spec},
    }


DEPLOYMENT = _workload("apps/v1", "Deployment", replicas=2)
REPLICA_SET = _workload("apps/v1", "ReplicaSet", replicas=2)
DAEMON_SET = _workload("apps/v1", "DaemonSet")
STATEFUL_SET = _workload("apps/v1", "StatefulSet", serviceName="web")
RC = {
    **_workload("v1", "ReplicationController", replicas=1),
    "spec": {**DEPLOYMENT["spec"], "selector": {"app": "web"}},
}
JOB = with_path(_workload("batch/v1", "Job"), "spec.template.spec.restartPolicy", "Never")
JOB["spec"].pop("selector")
CRON_JOB = {
    "apiVersion": "batch/v1",
    "kind": "CronJob",
    "metadata": {"name": "nightly", "namespace": "default"},
    "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": JOB["spec"]}},
}

VALID = [
    ("", "ReplicationController", RC),
    ("apps", "Deployment", DEPLOYMENT),
    ("apps", "ReplicaSet", REPLICA_SET),
    ("apps", "DaemonSet", DAEMON_SET),
    ("apps", "StatefulSet", STATEFUL_SET),
    ("batch", "Job", JOB),
    ("batch", "CronJob", CRON_JOB),
]


@pytest.mark.parametrize(("group", "kind", "obj"), VALID, ids=[case[1] for case in VALID])
def test_valid_workload_passes(group: str, kind: str, obj: dict[str, Any]) -> None:
    assert causes(group, kind, obj) == []


INVALID_WORKLOADS = [
    (
        "deployment selector not matching the template",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.selector.matchLabels.app", "api"),
        [("spec.template.metadata.labels", INVALID, 'Invalid value: {"app":"web"}: ' + MISMATCH)],
    ),
    (
        "deployment with negative replicas",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.replicas", -1),
        [("spec.replicas", INVALID, "Invalid value: -1: must be greater than or equal to 0")],
    ),
    (
        "deployment without a selector",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.selector", ...),
        [("spec.selector", REQUIRED, "Required value"), ("spec.template.metadata.labels", INVALID, MISMATCH)],
    ),
    (
        "deployment with an empty selector",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.selector", {}),
        [("spec.selector", INVALID, "Invalid value: {}: empty selector is invalid for deployment")],
    ),
    (
        "deployment template restarting on failure",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.template.spec.restartPolicy", "OnFailure"),
        [
            (
                "spec.template.spec.restartPolicy",
                NOT_SUPPORTED,
                'Unsupported value: "OnFailure": supported values: "Always"',
            )
        ],
    ),
    (
        "deployment template with an invalid container",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.template.spec.containers.0.image", ...),
        [("spec.template.spec.containers[0].image", REQUIRED, "Required value")],
    ),
    (
        "deployment with zero surge and zero unavailable",
        "apps",
        "Deployment",
        with_path(
            DEPLOYMENT,
            "spec.strategy",
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}},
        ),
        [("spec.strategy.rollingUpdate.maxUnavailable", INVALID, "may not be 0 when `maxSurge` is 0")],
    ),
    (
        "deployment with a malformed percentage",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.strategy", {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "1x%"}}),
        [("spec.strategy.rollingUpdate.maxSurge", INVALID, "a valid percent string must be a numeric string")],
    ),
    (
        "deployment recreate strategy with rolling parameters",
        "apps",
        "Deployment",
        with_path(DEPLOYMENT, "spec.strategy", {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}),
        [("spec.strategy.rollingUpdate", FORBIDDEN, "may not be specified when strategy `type` is 'Recreate'")],
    ),
    (
        "deployment progress deadline not above min ready",
        "apps",
        "Deployment",
        with_path(with_path(DEPLOYMENT, "spec.minReadySeconds", 30), "spec.progressDeadlineSeconds", 30),
        [("spec.progressDeadlineSeconds", INVALID, "must be greater than minReadySeconds")],
    ),
    (
        "replica set with an active deadline",
        "apps",
        "ReplicaSet",
        with_path(REPLICA_SET, "spec.template.spec.activeDeadlineSeconds", 30),
        [("spec.template.spec.activeDeadlineSeconds", INVALID, "activeDeadlineSeconds in ReplicaSet is not Supported")],
    ),
    (
        "daemon set without a selector",
        "apps",
        "DaemonSet",
        with_path(DAEMON_SET, "spec.selector", ...),
        [("spec.template.metadata.labels", INVALID, MISMATCH)],
    ),
    (
        "daemon set rolling update both surging and dropping pods",
        "apps",
        "DaemonSet",
        with_path(
            DAEMON_SET,
            "spec.updateStrategy",
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}},
        ),
        [("spec.updateStrategy.rollingUpdate.maxSurge", INVALID, "may not be set when maxUnavailable is non-zero")],
    ),
    (
        "daemon set with an unknown update strategy",
        "apps",
        "DaemonSet",
        with_path(DAEMON_SET, "spec.updateStrategy", {"type": "Eventually"}),
        [
            (
                "spec.updateStrategy",
                NOT_SUPPORTED,
                (
                    'Unsupported value: {"Type":"Eventually","RollingUpdate":null}: '
                    'supported values: "RollingUpdate", "OnDelete"'
                ),
            )
        ],
    ),
    (
        "stateful set with an unknown pod management policy",
        "apps",
        "StatefulSet",
        with_path(STATEFUL_SET, "spec.podManagementPolicy", "Eager"),
        [("spec.podManagementPolicy", INVALID, "must be 'OrderedReady' or 'Parallel'")],
    ),
    (
        "stateful set with an active deadline",
        "apps",
        "StatefulSet",
        with_path(STATEFUL_SET, "spec.template.spec.activeDeadlineSeconds", 30),
        [
            (
                "spec.template.spec.activeDeadlineSeconds",
                FORBIDDEN,
                "activeDeadlineSeconds in StatefulSet is not Supported",
            )
        ],
    ),
    (
        "replica set with negative replicas",
        "apps",
        "ReplicaSet",
        with_path(REPLICA_SET, "spec.replicas", -1),
        [("spec.replicas", INVALID, "must be greater than or equal to 0")],
    ),
    (
        "replica set without a selector",
        "apps",
        "ReplicaSet",
        with_path(REPLICA_SET, "spec.selector", ...),
        [("spec.selector", REQUIRED, "Required value"), ("spec.template.metadata.labels", INVALID, MISMATCH)],
    ),
    (
        "replication controller with negative replicas",
        "",
        "ReplicationController",
        with_path(RC, "spec.replicas", -1),
        [("spec.replicas", INVALID, "must be greater than or equal to 0")],
    ),
    (
        "replication controller without a template",
        "",
        "ReplicationController",
        with_path(RC, "spec.template", ...),
        [("spec.template", REQUIRED, "Required value")],
    ),
    (
        "replication controller selector not matching the template",
        "",
        "ReplicationController",
        with_path(RC, "spec.selector", {"app": "api"}),
        [("spec.template.metadata.labels", INVALID, MISMATCH)],
    ),
    (
        "job with negative parallelism",
        "batch",
        "Job",
        with_path(JOB, "spec.parallelism", -1),
        [("spec.parallelism", INVALID, "must be greater than or equal to 0")],
    ),
    (
        "job with negative completions",
        "batch",
        "Job",
        with_path(JOB, "spec.completions", -2),
        [("spec.completions", INVALID, "must be greater than or equal to 0")],
    ),
    (
        "job template restarting always (the pod default)",
        "batch",
        "Job",
        with_path(JOB, "spec.template.spec.restartPolicy", ...),
        [("spec.template.spec.restartPolicy", REQUIRED, 'Required value: valid values: "OnFailure", "Never"')],
    ),
    (
        "job template with an unknown restart policy",
        "batch",
        "Job",
        with_path(JOB, "spec.template.spec.restartPolicy", "Sometimes"),
        [
            ("spec.template.spec.restartPolicy", NOT_SUPPORTED, 'supported values: "Always", "OnFailure", "Never"'),
            ("spec.template.spec.restartPolicy", NOT_SUPPORTED, 'supported values: "OnFailure", "Never"'),
        ],
    ),
    (
        "backoff limit per index without indexed completion",
        "batch",
        "Job",
        with_path(JOB, "spec.backoffLimitPerIndex", 1),
        [("spec.backoffLimitPerIndex", INVALID, "Invalid value: 1: requires indexed completion mode")],
    ),
    (
        "job selector not matching its template",
        "batch",
        "Job",
        with_path(JOB, "spec.selector", {"matchLabels": {"app": "api"}}),
        [("spec.template.metadata.labels", INVALID, MISMATCH)],
    ),
    (
        "cron job template with a selector",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.jobTemplate.spec.selector", {"matchLabels": {"app": "web"}}),
        [("spec.jobTemplate.spec.selector", INVALID, "`selector` will be auto-generated")],
    ),
    (
        "cron job schedule with four fields",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.schedule", "0 3 * *"),
        [("spec.schedule", INVALID, 'Invalid value: "0 3 * *": expected exactly 5 fields, found 4: [0 3 * *]')],
    ),
    (
        "cron job schedule with an hour out of range",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.schedule", "0 25 * * *"),
        [("spec.schedule", INVALID, "end of range (25) above maximum (23): 25")],
    ),
    (
        "cron job schedule with a word",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.schedule", "0 x * * *"),
        [("spec.schedule", INVALID, 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax')],
    ),
    (
        "cron job schedule with an unknown descriptor",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.schedule", "@fortnightly"),
        [("spec.schedule", INVALID, "unrecognized descriptor: @fortnightly")],
    ),
    (
        "cron job schedule with a time zone",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.schedule", "TZ=UTC 0 3 * * *"),
        [("spec.schedule", INVALID, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")],
    ),
    (
        "cron job with an unknown time zone",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.timeZone", "Mars/Olympus_Mons"),
        [("spec.timeZone", INVALID, 'Invalid value: "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons')],
    ),
    (
        "cron job with an unknown concurrency policy",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "spec.concurrencyPolicy", "Sometimes"),
        [("spec.concurrencyPolicy", NOT_SUPPORTED, 'supported values: "Allow", "Forbid", "Replace"')],
    ),
    (
        "cron job with a name too long for its jobs",
        "batch",
        "CronJob",
        with_path(CRON_JOB, "metadata.name", "n" * 53),
        [("metadata.name", INVALID, "must be no more than 52 characters")],
    ),
]


@pytest.mark.parametrize(
    ("group", "kind", "obj", "expected"), [c[1:] for c in INVALID_WORKLOADS], ids=[c[0] for c in INVALID_WORKLOADS]
)
def test_invalid_workload(group: str, kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(group, kind, obj), expected)


def test_cron_job_accepts_a_known_time_zone() -> None:
    assert causes("batch", "CronJob", with_path(CRON_JOB, "spec.timeZone", "Europe/Berlin")) == []


@pytest.mark.parametrize(("group", "kind", "obj"), VALID[1:4], ids=[case[1] for case in VALID[1:4]])
def test_apps_selector_is_immutable(group: str, kind: str, obj: dict[str, Any]) -> None:
    changed = with_path(
        with_path(obj, "spec.selector.matchLabels.tier", "front"), "spec.template.metadata.labels.tier", "front"
    )
    expected = [
        ("spec.selector", INVALID, 'Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable')
    ]
    assert_causes(causes(group, kind, changed, old=obj), expected)


def test_deployment_template_may_change() -> None:
    changed = with_path(DEPLOYMENT, "spec.template.spec.containers.0.image", "nginx:1.28")
    assert causes("apps", "Deployment", changed, old=DEPLOYMENT) == []


def test_stateful_set_may_change_replicas() -> None:
    assert causes("apps", "StatefulSet", with_path(STATEFUL_SET, "spec.replicas", 5), old=STATEFUL_SET) == []


def test_stateful_set_refuses_other_spec_changes() -> None:
    changed = with_path(STATEFUL_SET, "spec.serviceName", "other")
    expected = [
        ("spec", FORBIDDEN, "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template'")
    ]
    assert_causes(causes("apps", "StatefulSet", changed, old=STATEFUL_SET), expected)


def test_job_template_is_immutable() -> None:
    changed = with_path(JOB, "spec.template.spec.containers.0.image", "nginx:1.28")
    assert_causes(causes("batch", "Job", changed, old=JOB), [("spec.template", INVALID, "field is immutable")])
