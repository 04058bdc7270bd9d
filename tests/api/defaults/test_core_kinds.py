"""Core kinds other than Pods and Services, after upstream's pkg/apis/core/v1/defaults.go and the
declarative `+default` markers of k8s.io/api core/v1/types.go (release-1.36)."""

from __future__ import annotations

from typing import Any

from tests.api.defaults.support import defaulted


def test_secret_type_defaults_to_opaque() -> None:
    assert defaulted("", "Secret", {"data": {}})["type"] == "Opaque"


def test_secret_type_is_kept() -> None:
    assert defaulted("", "Secret", {"type": "kubernetes.io/tls"})["type"] == "kubernetes.io/tls"


def test_replication_controller_selector_labels_and_replicas_follow_the_template() -> None:
    controller = defaulted("", "ReplicationController", {"spec": {"template": {"metadata": {"labels": {"a": "b"}}}}})
    assert controller["metadata"] == {"labels": {"a": "b"}}
    assert (controller["spec"]["selector"], controller["spec"]["replicas"]) == ({"a": "b"}, 1)


def test_replication_controller_keeps_its_own_selector_labels_and_replicas() -> None:
    given = {
        "metadata": {"labels": {"x": "y"}},
        "spec": {"replicas": 0, "selector": {"c": "d"}, "template": {"metadata": {"labels": {"a": "b"}}}},
    }
    controller = defaulted("", "ReplicationController", given)
    assert (controller["metadata"]["labels"], controller["spec"]["selector"], controller["spec"]["replicas"]) == (
        {"x": "y"},
        {"c": "d"},
        0,
    )


def test_pod_template_gets_the_pod_spec_defaults() -> None:
    template = defaulted("", "PodTemplate", {"template": {"spec": {"containers": [{"name": "c", "image": "i:1"}]}}})
    assert template["template"]["spec"]["restartPolicy"] == "Always"


def test_persistent_volume() -> None:
    volume = {"spec": {"capacity": {"storage": "1024Mi"}, "hostPath": {"path": "/d"}, "rbd": {"image": "x"}}}
    assert defaulted("", "PersistentVolume", volume)["spec"] == {
        "capacity": {"storage": "1Gi"},
        "hostPath": {"path": "/d", "type": ""},
        "rbd": {"image": "x", "pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"},
        "persistentVolumeReclaimPolicy": "Retain",
        "volumeMode": "Filesystem",
    }


def test_persistent_volume_claim_spec() -> None:
    claim = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1e3"}}}}
    assert defaulted("", "PersistentVolumeClaim", claim)["spec"] == {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1e3"}},
        "volumeMode": "Filesystem",
    }


def test_block_claims_keep_their_mode() -> None:
    claim = defaulted("", "PersistentVolumeClaim", {"spec": {"volumeMode": "Block"}})
    assert claim["spec"]["volumeMode"] == "Block"


def test_status_is_not_defaulted() -> None:
    """Upstream also sets a claim's and a volume's phase to Pending; status belongs to the strategies."""
    assert "status" not in defaulted("", "PersistentVolumeClaim", {"spec": {}})


def test_endpoints_ports_default_to_tcp() -> None:
    endpoints = {"subsets": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}]}
    ports = defaulted("", "Endpoints", endpoints)["subsets"][0]["ports"]
    assert [port["protocol"] for port in ports] == ["TCP", "UDP"]


def test_container_limit_range_defaults_limits_to_max_and_requests_to_limits_then_min() -> None:
    item: dict[str, Any] = {
        "type": "Container",
        "max": {"cpu": "2", "memory": "1Gi"},
        "min": {"cpu": "100m", "ephemeral-storage": "1Gi"},
        "default": {"memory": "512Mi"},
    }
    limits = defaulted("", "LimitRange", {"spec": {"limits": [item]}})["spec"]["limits"][0]
    assert (limits["default"], limits["defaultRequest"]) == (
        {"cpu": "2", "memory": "512Mi"},
        {"cpu": "2", "memory": "512Mi", "ephemeral-storage": "1Gi"},
    )


def test_pod_limit_ranges_get_no_defaults_but_rounded_quantities() -> None:
    item = {"type": "Pod", "max": {"cpu": "0.0001"}}
    assert defaulted("", "LimitRange", {"spec": {"limits": [item]}})["spec"]["limits"] == [
        {"type": "Pod", "max": {"cpu": "1m"}}
    ]


def test_resource_quota_hard_limits_are_canonical() -> None:
    quota = defaulted("", "ResourceQuota", {"spec": {"hard": {"cpu": "1000m", "pods": "10"}}})
    assert quota["spec"]["hard"] == {"cpu": "1", "pods": "10"}


def test_namespaces_are_left_to_their_strategy() -> None:
    """The name label upstream adds is brand-bearing; the namespace strategy sets it."""
    namespace = {"metadata": {"name": "a"}}
    assert defaulted("", "Namespace", namespace) == namespace
