"""The rollout arithmetic of Deployments, rule by rule (upstream's deployment/util)."""

from __future__ import annotations

from typing import Any

import pytest

from svc.controllers import deployment_math as math


def deployment(replicas: int = 10, surge: Any = "25%", unavailable: Any = "25%", **extra: Any) -> dict:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}
    return {"metadata": {"generation": 1}, "spec": {"replicas": replicas, "strategy": strategy, **extra}, "status": {}}


def replica_set(replicas: int, available: int = 0, ready: int | None = None) -> dict:
    status = {
        "replicas": replicas,
        "availableReplicas": available,
        "readyReplicas": available if ready is None else ready,
    }
    return {"spec": {"replicas": replicas}, "status": status}


def test_percentages_round_surge_up_and_unavailability_down():
    assert math.fenceposts(deployment(10, "25%", "25%")) == (3, 2)


def test_zero_surge_and_zero_unavailability_allow_one_unavailable():
    assert math.fenceposts(deployment(3, 0, 0)) == (0, 1)


def test_recreate_has_no_fenceposts():
    assert math.fenceposts({"spec": {"replicas": 3, "strategy": {"type": "Recreate"}}}) == (0, 0)


def test_the_new_set_grows_within_the_surge():
    new, old = replica_set(0), replica_set(10, 10)
    assert math.new_replicas(deployment(10), [old, new], new) == 3


def test_the_new_set_does_not_grow_while_the_surge_is_used():
    new, old = replica_set(3), replica_set(10, 10)
    assert math.new_replicas(deployment(10), [old, new], new) == 3


def test_status_sums_the_sets_and_reports_minimum_availability():
    status = math.calculate_status(deployment(10), [replica_set(7, 7), replica_set(3, 1)], replica_set(3, 1), 0.0)
    assert (
        status["replicas"],
        status["updatedReplicas"],
        status["availableReplicas"],
        status["unavailableReplicas"],
    ) == (
        10,
        3,
        8,
        2,
    )
    available = math.condition(status, "Available")
    assert (available["status"], available["reason"]) == ("True", "MinimumReplicasAvailable")


def test_a_deployment_is_complete_when_every_replica_is_updated_and_available():
    owner = deployment(2)
    status = {"updatedReplicas": 2, "replicas": 2, "availableReplicas": 2, "observedGeneration": 1}
    assert math.complete(owner, status)
    assert not math.complete(owner, {**status, "availableReplicas": 1})


def test_template_hashes_differ_by_template_and_collision_count():
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "a"}]}}
    other = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "b"}]}}
    assert math.template_hash(template, 0) == math.template_hash(template, 0)
    assert len({math.template_hash(template, 0), math.template_hash(other, 0), math.template_hash(template, 1)}) == 3
    assert set(math.template_hash(template, 0)) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_templates_are_equal_ignoring_the_hash_label():
    a = {"metadata": {"labels": {"app": "web", "pod-template-hash": "abc"}}, "spec": {}}
    b = {"metadata": {"labels": {"app": "web"}}, "spec": {}}
    assert math.same_template(a, b)


DESIRED, MAX = "desired", "max"


def _set(name: str, replicas: int, created: str, before: int, available: int = 0) -> dict:
    """A replica set last scaled when the Deployment had `before` replicas (no surge)."""
    annotations = {DESIRED: str(before), MAX: str(before)}
    return {
        "metadata": {"name": name, "creationTimestamp": created, "annotations": annotations},
        "spec": {"replicas": replicas},
        "status": {"availableReplicas": available},
    }


def _plan(replicas: int, new: dict | None, old: list[dict]) -> dict[str, int]:
    scaled = deployment(replicas, surge=0, unavailable=0)
    plan = math.scale_plan(scaled, new, old, desired_key=DESIRED, max_key=MAX)
    return {rs["metadata"]["name"]: size for rs, size in plan}


@pytest.mark.parametrize(
    ("before", "after", "sizes", "expected"),
    [
        (5, 10, {"v1": 3, "v2": 2}, {"v1": 6, "v2": 4}),
        (5, 3, {"v1": 3, "v2": 2}, {"v1": 2, "v2": 1}),
        (9, 4, {"v1": 1, "v2": 8}, {"v2": 4, "v1": 0}),
        (7, 10, {"v1": 2, "v2": 3, "v3": 2}, {"v2": 4, "v3": 3, "v1": 3}),
        (13, 8, {"v1": 3, "v2": 8, "v3": 2}, {"v2": 5, "v1": 2, "v3": 1}),
    ],
)
def test_a_resize_during_a_rollout_is_spread_in_proportion(before, after, sizes, expected) -> None:
    sets = [
        _set(name, size, f"2026-01-0{index + 1}T00:00:00Z", before) for index, (name, size) in enumerate(sizes.items())
    ]
    *old, new = sets
    assert _plan(after, new, old) == expected


def test_one_active_set_takes_the_whole_count() -> None:
    new = _set("v2", 5, "2026-01-02T00:00:00Z", 5)
    old = [_set("v1", 0, "2026-01-01T00:00:00Z", 5)]
    assert _plan(8, new, old) == {"v2": 8}


def test_without_an_active_set_the_newest_is_scaled() -> None:
    old = [_set("v1", 0, "2026-01-01T00:00:00Z", 5), _set("v2", 0, "2026-01-02T00:00:00Z", 5)]
    assert _plan(3, None, old) == {"v2": 3}


def test_a_saturated_new_set_scales_the_old_ones_away() -> None:
    new = _set("v2", 4, "2026-01-02T00:00:00Z", 4, available=4)
    old = [_set("v1", 2, "2026-01-01T00:00:00Z", 4)]
    assert _plan(4, new, old) == {"v1": 0}
