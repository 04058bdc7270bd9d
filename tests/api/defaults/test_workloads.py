"""Workloads: cases transcribed from upstream's kubernetes/kubernetes pkg/apis/apps/v1/defaults_test.go
(TestSetDefaultDeployment, TestSetDefaultDaemonSetSpec, TestSetDefaultStatefulSet,
TestSetDefaultReplicaSetReplicas) and pkg/apis/batch/v1/defaults_test.go (TestSetDefaultJob,
TestSetDefaultCronJob), with the 1.36 defaulters (pkg/apis/{apps,batch}/v1/defaults.go)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.defaults.support import defaulted

_POD_SPEC_DEFAULTS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "securityContext": {},
    "terminationGracePeriodSeconds": 30,
    "schedulerName": "default-scheduler",
}
_ROLLING_25 = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}


def _spec(group: str, kind: str, **spec: Any) -> dict[str, Any]:
    return defaulted(group, kind, {"spec": {"template": {"spec": {}}, **spec}})["spec"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"replicas": 1, "strategy": _ROLLING_25, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}),
        (
            {"replicas": 5, "strategy": {"rollingUpdate": {"maxSurge": 5}}},
            {
                "replicas": 5,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 5, "maxUnavailable": "25%"}},
                "revisionHistoryLimit": 10,
                "progressDeadlineSeconds": 600,
            },
        ),
        (
            {"replicas": 3, "strategy": {"type": "RollingUpdate", "rollingUpdate": None}},
            {"replicas": 3, "strategy": _ROLLING_25, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        ),
        (
            {"replicas": 5, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 0},
            {
                "replicas": 5,
                "strategy": {"type": "Recreate"},
                "revisionHistoryLimit": 0,
                "progressDeadlineSeconds": 600,
            },
        ),
        (
            {"replicas": 5, "strategy": {"type": "Recreate"}, "progressDeadlineSeconds": 30, "revisionHistoryLimit": 2},
            {"replicas": 5, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 2, "progressDeadlineSeconds": 30},
        ),
    ],
)
def test_deployment(given: dict[str, Any], expected: dict[str, Any]) -> None:
    assert _spec("apps", "Deployment", **given) == {**expected, "template": {"spec": _POD_SPEC_DEFAULTS}}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}),
        ({"type": "OnDelete"}, {"type": "OnDelete"}),
        (
            {"rollingUpdate": {"maxUnavailable": "10%"}},
            {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "10%", "maxSurge": 0}},
        ),
    ],
)
def test_daemon_set_update_strategy(given: dict[str, Any], expected: dict[str, Any]) -> None:
    spec = _spec("apps", "DaemonSet", updateStrategy=given, revisionHistoryLimit=1)
    assert (spec["updateStrategy"], spec["revisionHistoryLimit"]) == (expected, 1)


_ORDERED = {"podManagementPolicy": "OrderedReady", "replicas": 1, "revisionHistoryLimit": 10}
_RETAIN = {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"}}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {**_ORDERED, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}}),
        ({"updateStrategy": {"type": "OnDelete"}}, {**_ORDERED, "updateStrategy": {"type": "OnDelete"}}),
        (
            {"podManagementPolicy": "Parallel"},
            {
                **_ORDERED,
                "podManagementPolicy": "Parallel",
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            },
        ),
        (
            {"updateStrategy": {"rollingUpdate": {"partition": 42}}},
            {**_ORDERED, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 42}}},
        ),
        ({"updateStrategy": {"type": "RollingUpdate"}}, {**_ORDERED, "updateStrategy": {"type": "RollingUpdate"}}),
    ],
    ids=["unset", "on-delete", "parallel", "partition-kept", "explicit-rolling-without-parameters"],
)
def test_stateful_set(given: dict[str, Any], expected: dict[str, Any]) -> None:
    assert _spec("apps", "StatefulSet", **given) == {**expected, **_RETAIN, "template": {"spec": _POD_SPEC_DEFAULTS}}


def test_stateful_set_max_unavailable_stays_unset_while_its_gate_is_off() -> None:
    spec = _spec("apps", "StatefulSet")
    assert "maxUnavailable" not in spec["updateStrategy"]["rollingUpdate"]


def test_stateful_set_claim_templates_get_a_claims_defaults() -> None:
    claim = {"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1024Mi"}}}}
    spec = _spec("apps", "StatefulSet", volumeClaimTemplates=[claim])
    assert spec["volumeClaimTemplates"] == [
        {
            "metadata": {"name": "data"},
            "spec": {"resources": {"requests": {"storage": "1Gi"}}, "volumeMode": "Filesystem"},
            "status": {"phase": "Pending"},
        }
    ]


@pytest.mark.parametrize(("given", "expected"), [(None, 1), (0, 0), (3, 3)])
def test_replica_set_replicas(given: int | None, expected: int) -> None:
    spec = {} if given is None else {"replicas": given}
    assert _spec("apps", "ReplicaSet", **spec)["replicas"] == expected


_JOB_DEFAULTS = {
    "backoffLimit": 6,
    "completionMode": "NonIndexed",
    "suspend": False,
    "podReplacementPolicy": "TerminatingOrFailed",
    "manualSelector": False,
}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, {"completions": 1, "parallelism": 1}),
        ({"completions": 11}, {"completions": 11, "parallelism": 1}),
        ({"parallelism": 11}, {"parallelism": 11}),
        ({"parallelism": 0}, {"parallelism": 0}),
        ({"completions": 0, "parallelism": 0}, {"completions": 0, "parallelism": 0}),
    ],
    ids=["unset", "completions", "work-queue", "paused-work-queue", "zeros-kept"],
)
def test_job_completions_and_parallelism(given: dict[str, Any], expected: dict[str, Any]) -> None:
    spec = _spec("batch", "Job", **given)
    assert {key: spec[key] for key in ("completions", "parallelism") if key in spec} == expected


def test_job_defaults() -> None:
    spec = _spec("batch", "Job")
    assert {key: spec[key] for key in _JOB_DEFAULTS} == _JOB_DEFAULTS


def test_job_with_a_per_index_backoff_limit_has_no_global_limit() -> None:
    assert _spec("batch", "Job", backoffLimitPerIndex=1, completionMode="Indexed")["backoffLimit"] == 2**31 - 1


def test_job_with_a_failure_policy_replaces_pods_once_they_failed() -> None:
    rules = [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]
    spec = _spec("batch", "Job", podFailurePolicy={"rules": rules})
    assert spec["podReplacementPolicy"] == "Failed"
    assert spec["podFailurePolicy"]["rules"][0]["onPodConditions"] == [{"type": "DisruptionTarget", "status": "True"}]


def test_job_labels_default_to_the_template_labels_only_when_it_has_none() -> None:
    template = {"metadata": {"labels": {"app": "a"}}, "spec": {}}
    unlabelled = defaulted("batch", "Job", {"spec": {"template": template}})
    labelled = defaulted("batch", "Job", {"metadata": {"labels": {"x": "y"}}, "spec": {"template": template}})
    assert (unlabelled["metadata"]["labels"], labelled["metadata"]["labels"]) == ({"app": "a"}, {"x": "y"})


def test_cron_job_defaults_its_own_fields_and_its_pod_template_but_not_the_job_spec() -> None:
    job_template = {"spec": {"template": {"spec": {}}, "podFailurePolicy": {"rules": [{"onPodConditions": [{}]}]}}}
    spec = defaulted("batch", "CronJob", {"spec": {"schedule": "* * * * *", "jobTemplate": job_template}})["spec"]
    assert spec == {
        "schedule": "* * * * *",
        "concurrencyPolicy": "Allow",
        "suspend": False,
        "successfulJobsHistoryLimit": 3,
        "failedJobsHistoryLimit": 1,
        "jobTemplate": {
            "spec": {
                "template": {"spec": _POD_SPEC_DEFAULTS},
                "podFailurePolicy": {"rules": [{"onPodConditions": [{"status": "True"}]}]},
            }
        },
    }
