"""The rollout arithmetic of Deployments, rule by rule (upstream's deployment/util)."""

from __future__ import annotations

from typing import Any

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
