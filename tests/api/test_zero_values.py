"""Status zero values written as Go writes them: present structs filled, absent optional ones left out."""

from __future__ import annotations

from svc.api.zero_values import fill_status

_REPLICA_SET = "io.k8s.api.apps.v1.ReplicaSet"


def test_a_required_status_scalar_gets_its_zero() -> None:
    obj = {"spec": {}, "status": {"readyReplicas": 2}}
    fill_status(_REPLICA_SET, obj)
    assert obj["status"] == {"readyReplicas": 2, "replicas": 0}


def test_a_given_value_and_an_explicit_zero_are_kept() -> None:
    obj = {"status": {"replicas": 3}}
    fill_status(_REPLICA_SET, obj)
    assert obj["status"]["replicas"] == 3


def test_a_null_required_scalar_is_written_as_its_zero() -> None:
    obj = {"status": {"replicas": None}}
    fill_status(_REPLICA_SET, obj)
    assert obj["status"]["replicas"] == 0


def test_no_status_is_invented() -> None:
    obj = {"spec": {}}
    fill_status(_REPLICA_SET, obj)
    assert obj == {"spec": {}}


def test_the_spec_is_left_to_validation() -> None:
    obj = {"spec": {"ports": [{}]}, "status": {}}
    fill_status("io.k8s.api.core.v1.Service", obj)
    assert obj["spec"] == {"ports": [{}]}


def test_a_value_struct_of_a_status_is_written_empty() -> None:
    obj = {"status": {}}
    fill_status("io.k8s.api.core.v1.Service", obj)
    assert obj["status"] == {"loadBalancer": {}}


def test_an_absent_optional_struct_stays_absent() -> None:
    obj = {"status": {"phase": "Pending"}}
    fill_status("io.k8s.api.core.v1.PersistentVolumeClaim", obj)
    assert obj["status"] == {"phase": "Pending"}


def test_a_present_optional_struct_is_filled() -> None:
    obj = {"status": {"modifyVolumeStatus": {"targetVolumeAttributesClassName": "gold"}}}
    fill_status("io.k8s.api.core.v1.PersistentVolumeClaim", obj)
    assert obj["status"]["modifyVolumeStatus"] == {"targetVolumeAttributesClassName": "gold", "status": ""}


def test_list_items_are_filled_and_their_required_structs_created() -> None:
    obj = {"status": {"currentMetrics": [{"type": "Resource", "resource": {}}]}}
    fill_status("io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler", obj)
    assert obj["status"] == {
        "desiredReplicas": 0,
        "currentMetrics": [{"type": "Resource", "resource": {"name": "", "current": {}}}],
    }


def test_nested_value_structs_are_written_down_to_their_required_scalars() -> None:
    obj = {"status": {}}
    fill_status("io.k8s.api.core.v1.Node", obj)
    assert obj["status"]["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 0}}
    assert obj["status"]["nodeInfo"]["machineID"] == ""


def test_counters_marked_optional_but_written_by_go_get_their_zero() -> None:
    obj = {"status": {"observedGeneration": 1}}
    fill_status("io.k8s.api.policy.v1.PodDisruptionBudget", obj)
    assert obj["status"] == {
        "observedGeneration": 1,
        "disruptionsAllowed": 0,
        "currentHealthy": 0,
        "desiredHealthy": 0,
        "expectedPods": 0,
    }


def test_a_field_of_the_wrong_type_is_left_for_validation() -> None:
    obj = {"status": {"loadBalancer": "nope"}}
    fill_status("io.k8s.api.core.v1.Service", obj)
    assert obj["status"] == {"loadBalancer": "nope"}


def test_a_kind_without_a_plan_is_untouched() -> None:
    obj = {"status": {}}
    fill_status("io.k8s.api.core.v1.ConfigMap", obj)
    assert obj == {"status": {}}
