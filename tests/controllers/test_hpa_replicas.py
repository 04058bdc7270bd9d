"""The replica calculation of resource metrics, as upstream's replica calculator computes it."""

from __future__ import annotations

import pytest

from svc.controllers.hpa_replicas import (
    PodMetric,
    Readiness,
    ReplicaCalculationError,
    Tolerances,
    per_pod_replicas,
    resource_replicas,
    usage_ratio_replicas,
)

NOW = 1_000_000.0
LONG_AGO = "1970-01-12T13:00:00Z"  # well before NOW - the CPU initialization period


def pod(name: str, cpu_request: str = "100m", *, phase: str = "Running", ready: str = "True", deleting: bool = False):
    metadata = {"name": name, **({"deletionTimestamp": LONG_AGO} if deleting else {})}
    return {
        "metadata": metadata,
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu_request}}}]},
        "status": {
            "phase": phase,
            "startTime": LONG_AGO,
            "conditions": [{"type": "Ready", "status": ready, "lastTransitionTime": LONG_AGO}],
        },
    }


def samples(**milli: int) -> dict[str, PodMetric]:
    return {name: PodMetric(value, NOW - 5, 10.0) for name, value in milli.items()}


def cpu(current: int, pods, metrics, target: int = 50, **kwargs):
    return resource_replicas(current, pods, metrics, "cpu", target_utilization=target, now=NOW, **kwargs)


def test_usage_above_target_scales_the_ready_pods_by_the_ratio() -> None:
    result = cpu(3, [pod("a"), pod("b"), pod("c")], samples(a=90, b=90, c=90))
    assert (result.replicas, result.utilization, result.raw_value) == (6, 90, 90)


def test_a_ratio_within_the_tolerance_keeps_the_scale() -> None:
    assert cpu(4, [pod(n) for n in "abcd"], samples(a=54, b=54, c=54, d=54)).replicas == 4


def test_a_configured_tolerance_widens_the_band() -> None:
    pods, metrics = [pod(n) for n in "ab"], samples(a=70, b=70)
    assert cpu(2, pods, metrics).replicas == 3
    assert cpu(2, pods, metrics, tolerances=Tolerances(0.1, 0.5)).replicas == 2


def test_usage_below_target_scales_down() -> None:
    assert cpu(4, [pod(n) for n in "abcd"], samples(a=10, b=10, c=10, d=10)).replicas == 1


def test_missing_pods_count_as_fully_used_on_the_way_down() -> None:
    # a and b at 10%, c has no sample: counted at 100% of its request, so 3 pods at 40% -> 3 replicas
    assert cpu(3, [pod("a"), pod("b"), pod("c")], samples(a=10, b=10)).replicas == 3


def test_missing_pods_count_as_idle_on_the_way_up() -> None:
    # a at 200%, b missing: (200 + 0) / 2 = 100% against 50% -> 4
    assert cpu(2, [pod("a"), pod("b")], samples(a=200)).replicas == 4


def test_unready_pods_count_as_idle_when_scaling_up() -> None:
    pods = [pod("a"), pod("b", phase="Pending")]
    # a alone is at 100% (ratio 2); b is pending (unready): 2 pods at 50% -> ratio 1.0, no change
    assert cpu(2, pods, samples(a=100)).replicas == 2


def test_deleted_and_failed_pods_are_ignored() -> None:
    pods = [pod("a"), pod("b", deleting=True), pod("c", phase="Failed")]
    assert cpu(1, pods, samples(a=100, b=1000, c=1000)).replicas == 2


def test_a_container_without_a_request_is_an_error() -> None:
    bare = pod("a")
    del bare["spec"]["containers"][0]["resources"]
    with pytest.raises(ReplicaCalculationError, match="missing request for cpu in container app of Pod a"):
        cpu(1, [bare], samples(a=10))


def test_no_pods_is_an_error() -> None:
    with pytest.raises(ReplicaCalculationError, match="no pods returned by selector"):
        cpu(1, [], samples())


def test_only_unready_pods_is_an_error() -> None:
    with pytest.raises(ReplicaCalculationError, match="did not receive metrics for targeted pods"):
        cpu(1, [pod("a", ready="False")], samples(a=10), readiness=Readiness(300.0, 1e9))


def test_average_value_targets_divide_the_average_by_the_target() -> None:
    result = resource_replicas(2, [pod("a"), pod("b")], samples(a=300, b=300), "cpu", target_average_value=100, now=NOW)
    assert (result.replicas, result.utilization, result.raw_value) == (6, None, 300)


def test_a_value_ratio_at_zero_replicas_asks_for_the_ratio_rounded_up() -> None:
    # nothing runs to be scaled (scale to zero): 2.1 times the target -> 3 replicas, no pods needed
    assert usage_ratio_replicas(0, 2.1, Tolerances(), []) == 3


def test_a_value_ratio_counts_only_running_ready_pods() -> None:
    pods = [pod("a"), pod("b", ready="False"), pod("c", phase="Pending")]
    assert usage_ratio_replicas(3, 2.0, Tolerances(), pods) == 2


def test_a_value_ratio_without_pods_is_an_error() -> None:
    with pytest.raises(ReplicaCalculationError, match="unable to calculate ready pods: no pods returned by selector"):
        usage_ratio_replicas(2, 3.0, Tolerances(), [])


def test_an_average_value_total_within_the_tolerance_keeps_the_replicas() -> None:
    # 4 replicas at 10.5 each against 10: kept; the usage reported is the total over the replicas
    assert per_pod_replicas(4, 42_000, 10_000, Tolerances()) == (4, 10_500)
    assert per_pod_replicas(4, 90_000, 10_000, Tolerances()) == (9, 22_500)
