"""Replica ownership between a workload and its Scale (`svc.machinery.apply.scale_fields`), in the cases
of upstream's ScaleHandler tests."""

from __future__ import annotations

from svc.machinery.apply.scale_fields import replicas_paths, to_parent, to_subresource

PATHS = replicas_paths({"apps/v1": ".spec.replicas"})
T1 = "2024-01-01T00:00:00Z"
REPLICAS = {"f:spec": {"f:replicas": {}}}


def entry(manager: str, operation: str, api_version: str, fields: dict, **extra: str) -> dict:
    return {
        "manager": manager,
        "operation": operation,
        "apiVersion": api_version,
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
        **extra,
    }


def test_the_scale_shows_the_owners_of_the_parents_replicas_with_their_times() -> None:
    parent = [
        {**entry("test", "Apply", "apps/v1", {"f:spec": {"f:replicas": {}, "f:selector": {}}}), "time": T1},
        entry("other", "Update", "apps/v1", {"f:spec": {"f:selector": {}}}),
    ]
    assert to_subresource(parent, PATHS) == [{**entry("test", "Apply", "autoscaling/v1", REPLICAS), "time": T1}]


def test_an_updater_of_the_scale_takes_replicas_from_the_parents_owner_and_carries_no_time() -> None:
    parent = [{**entry("test", "Update", "apps/v1", {"f:spec": {"f:replicas": {}, "f:selector": {}}}), "time": T1}]
    scale = [{**entry("scale", "Update", "autoscaling/v1", REPLICAS, subresource="scale"), "time": T1}]
    assert to_parent(parent, scale, PATHS, "apps/v1") == [
        entry("scale", "Update", "apps/v1", REPLICAS, subresource="scale"),
        {**entry("test", "Update", "apps/v1", {"f:spec": {"f:selector": {}}}), "time": T1},
    ]


def test_a_scale_manager_not_owning_replicas_is_forgotten_and_unknown_versions_are_dropped() -> None:
    parent = [
        entry("test", "Apply", "apps/v1", {"f:spec": {"f:selector": {}}}),
        entry("old", "Apply", "apps/v10", {"f:spec": {"f:selector": {}}}),
    ]
    scale = [entry("scale", "Update", "autoscaling/v1", {"f:status": {"f:replicas": {}}}, subresource="scale")]
    assert to_parent(parent, scale, PATHS, "apps/v1") == [
        entry("test", "Apply", "apps/v1", {"f:spec": {"f:selector": {}}})
    ]


def test_an_applier_that_still_owns_replicas_on_the_scale_keeps_its_parent_entry() -> None:
    applied = {**entry("test", "Apply", "apps/v1", REPLICAS, subresource="scale"), "time": T1}
    scale = [entry("test", "Apply", "autoscaling/v1", REPLICAS, subresource="scale")]
    assert to_parent([applied], scale, PATHS, "apps/v1") == [applied]
