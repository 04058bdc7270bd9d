"""A status sent with a write holds the zero values its Go type writes (derived from the Go struct tags
in messages.json): present structs filled, pointer structs left absent, values of the wrong type left
to validation."""

from __future__ import annotations

from svc.api.omit_empty import member_pruner


def _filled(group: str, version: str, kind: str, status: dict) -> dict:
    prune = member_pruner(group, version, kind, "status")
    assert prune is not None
    prune(status)
    return status


def test_a_status_scalar_without_omitempty_gets_its_zero() -> None:
    assert _filled("apps", "v1", "ReplicaSet", {"readyReplicas": 2})["replicas"] == 0


def test_a_given_value_and_an_explicit_zero_are_kept() -> None:
    assert _filled("apps", "v1", "ReplicaSet", {"replicas": 3})["replicas"] == 3


def test_a_null_scalar_is_written_as_its_zero() -> None:
    assert _filled("apps", "v1", "ReplicaSet", {"replicas": None})["replicas"] == 0


def test_a_value_struct_of_a_status_is_written_empty() -> None:
    assert _filled("", "v1", "Service", {}) == {"loadBalancer": {}}


def test_an_absent_pointer_struct_stays_absent() -> None:
    status = _filled("", "v1", "PersistentVolumeClaim", {"phase": "Pending"})
    assert "modifyVolumeStatus" not in status


def test_a_present_pointer_struct_is_filled() -> None:
    status = _filled(
        "", "v1", "PersistentVolumeClaim", {"modifyVolumeStatus": {"targetVolumeAttributesClassName": "g"}}
    )
    assert status["modifyVolumeStatus"] == {"targetVolumeAttributesClassName": "g", "status": ""}


def test_list_items_are_filled_and_their_value_structs_written() -> None:
    status = _filled(
        "autoscaling", "v2", "HorizontalPodAutoscaler", {"currentMetrics": [{"type": "Resource", "resource": {}}]}
    )
    assert status["desiredReplicas"] == 0
    assert status["currentMetrics"] == [{"type": "Resource", "resource": {"name": "", "current": {}}}]


def test_nested_value_structs_are_written_down_to_their_scalars() -> None:
    status = _filled("", "v1", "Node", {})
    assert status["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 0}}
    assert status["nodeInfo"]["machineID"] == ""


def test_counters_marked_optional_but_without_omitempty_get_their_zero() -> None:
    status = _filled("policy", "v1", "PodDisruptionBudget", {"observedGeneration": 1})
    assert [status[key] for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")] == [
        0
    ] * 4


def test_a_field_of_the_wrong_type_is_left_for_validation() -> None:
    assert _filled("", "v1", "Service", {"loadBalancer": "nope"}) == {"loadBalancer": "nope"}


def test_a_kind_without_a_status_has_no_member_prune() -> None:
    assert member_pruner("", "v1", "ConfigMap", "status") is None
