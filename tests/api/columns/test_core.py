from __future__ import annotations

from typing import Any

import pytest

from svc.api.columns import columns_for, core, descriptions
from tests.api.columns.support import ago, cells, headers


def meta(name: str = "web", **extra: Any) -> dict[str, Any]:
    return {"name": name, "namespace": "default", "creationTimestamp": ago(days=3), **extra}


def service(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"kind": "Service", "metadata": meta(), "spec": spec, "status": status or {}}


def test_service_columns_and_cells() -> None:
    assert headers(core.SERVICE) == [
        ("Name", "string", "name", 0),
        ("Type", "string", "", 0),
        ("Cluster-IP", "string", "", 0),
        ("External-IP", "string", "", 0),
        ("Port(s)", "string", "", 0),
        ("Age", "string", "", 0),
        ("Selector", "string", "", 1),
    ]
    obj = service(
        {
            "type": "ClusterIP",
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10", "fd00::10"],
            "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
            "selector": {"k8s-app": "kube-dns"},
        }
    )
    assert cells(core.SERVICE, obj) == [
        "web",
        "ClusterIP",
        "10.96.0.10",
        "<none>",
        "53/UDP,53/TCP",
        "3d",
        "k8s-app=kube-dns",
    ]


@pytest.mark.parametrize(
    ("spec", "status", "external", "ports"),
    [
        (
            {
                "type": "NodePort",
                "clusterIPs": ["10.0.0.5"],
                "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}],
            },
            {},
            "<none>",
            "80:30080/TCP",
        ),
        (
            {"type": "ClusterIP", "clusterIPs": ["10.0.0.5"], "externalIPs": ["1.2.3.4", "5.6.7.8"], "ports": []},
            {},
            "1.2.3.4,5.6.7.8",
            "<none>",
        ),
        (
            {
                "type": "LoadBalancer",
                "clusterIPs": ["10.0.0.5"],
                "ports": [{"port": 443, "nodePort": 31443, "protocol": "TCP"}],
            },
            {"loadBalancer": {}},
            "<pending>",
            "443:31443/TCP",
        ),
        (
            {"type": "LoadBalancer", "clusterIPs": ["10.0.0.5"], "ports": [{"port": 443, "protocol": "TCP"}]},
            {"loadBalancer": {"ingress": [{"ip": "203.0.113.9"}, {"hostname": "a-long-balancer-name.example.com"}]}},
            "203.0.113.9,a-long-balancer-name.example.com",
            "443/TCP",
        ),
        (
            {"type": "LoadBalancer", "clusterIPs": ["10.0.0.5"], "externalIPs": ["1.2.3.4"]},
            {"loadBalancer": {"ingress": [{"ip": "203.0.113.9"}]}},
            "203.0.113.9,1.2.3.4",
            "<none>",
        ),
        ({"type": "ExternalName", "externalName": "db.example.com"}, {}, "db.example.com", "<none>"),
    ],
    ids=[
        "node-port",
        "external-ips",
        "pending-balancer",
        "balancer-not-clipped",
        "balancer-and-external",
        "external-name",
    ],
)
def test_service_external_ip_and_ports(spec: dict[str, Any], status: dict[str, Any], external: str, ports: str) -> None:
    assert cells(core.SERVICE, service(spec, status))[3:5] == [external, ports]


def test_headless_and_unallocated_services() -> None:
    assert cells(core.SERVICE, service({"type": "ClusterIP", "clusterIP": "None", "clusterIPs": ["None"]}))[2] == "None"
    assert cells(core.SERVICE, service({"type": "ClusterIP", "clusterIP": "10.0.0.1"}))[2] == "<none>"
    assert cells(core.SERVICE, service({"type": "ExternalName"}))[2] == "<none>"


def endpoints(*subsets: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "Endpoints", "metadata": meta(), "subsets": list(subsets)}


def addresses(*ips: str) -> list[dict[str, str]]:
    return [{"ip": ip} for ip in ips]


@pytest.mark.parametrize(
    ("obj", "written"),
    [
        (endpoints(), "<none>"),
        (endpoints({"addresses": addresses("10.1.0.4"), "ports": [{"port": 8080}]}), "10.1.0.4:8080"),
        (endpoints({"addresses": addresses("fd00::4"), "ports": [{"port": 80}]}), "[fd00::4]:80"),
        (endpoints({"addresses": addresses("10.1.0.4", "10.1.0.5")}), "10.1.0.4,10.1.0.5"),
        (
            endpoints(
                {"addresses": addresses("10.1.0.4", "10.1.0.5"), "ports": [{"port": 80}, {"port": 443}]},
                {"addresses": addresses("10.1.0.6"), "ports": [{"port": 80}]},
            ),
            "10.1.0.4:80,10.1.0.5:80,10.1.0.4:443 + 2 more...",
        ),
        (endpoints({"notReadyAddresses": addresses("10.1.0.4"), "ports": [{"port": 80}]}), ""),
    ],
    ids=["no-subsets", "one", "ipv6", "headless", "more", "only-not-ready"],
)
def test_endpoints_cells(obj: dict[str, Any], written: str) -> None:
    assert headers(core.ENDPOINTS) == [
        ("Name", "string", "name", 0),
        ("Endpoints", "string", "", 0),
        ("Age", "string", "", 0),
    ]
    assert cells(core.ENDPOINTS, obj) == ["web", written, "3d"]


def node(ready: str | None = "True", labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    conditions = [{"type": "MemoryPressure", "status": "False"}]
    if ready is not None:
        conditions.append({"type": "Ready", "status": ready})
    return {
        "kind": "Node",
        "metadata": {"name": "node-1", "creationTimestamp": ago(days=40), "labels": labels or {}},
        "spec": spec,
        "status": {
            "conditions": conditions,
            "addresses": [{"type": "Hostname", "address": "node-1"}, {"type": "InternalIP", "address": "192.168.1.10"}],
            "nodeInfo": {
                "kubeletVersion": "v1.36.0",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "kernelVersion": "6.1.0-18-amd64",
                "containerRuntimeVersion": "containerd://1.7.13",
            },
        },
    }


def test_node_columns_and_cells() -> None:
    assert headers(core.NODE) == [
        ("Name", "string", "name", 0),
        ("Status", "string", "", 0),
        ("Roles", "string", "", 0),
        ("Age", "string", "", 0),
        ("Version", "string", "", 0),
        ("Internal-IP", "string", "", 1),
        ("External-IP", "string", "", 1),
        ("OS-Image", "string", "", 1),
        ("Kernel-Version", "string", "", 1),
        ("Container-Runtime", "string", "", 1),
    ]
    labels = {
        "node-role.kubernetes.io/control-plane": "",
        "kubernetes.io/role": "master",
        "node-role.kubernetes.io/": "",
    }
    assert cells(core.NODE, node(labels=labels)) == [
        "node-1",
        "Ready",
        "control-plane,master",
        "40d",
        "v1.36.0",
        "192.168.1.10",
        "<none>",
        "Debian GNU/Linux 12 (bookworm)",
        "6.1.0-18-amd64",
        "containerd://1.7.13",
    ]


@pytest.mark.parametrize(
    ("obj", "status"),
    [
        (node("False"), "NotReady"),
        (node("Unknown"), "NotReady"),
        (node(None), "Unknown"),
        (node("True", unschedulable=True), "Ready,SchedulingDisabled"),
    ],
)
def test_node_status(obj: dict[str, Any], status: str) -> None:
    assert cells(core.NODE, obj)[1] == status


def test_a_node_without_roles_or_info() -> None:
    obj = {"metadata": {"name": "n", "creationTimestamp": ago(days=40)}, "status": {}}
    assert cells(core.NODE, obj)[2:] == ["<none>", "40d", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]


def test_namespace_config_map_secret_and_service_account() -> None:
    namespace = {"metadata": meta("kube-system"), "status": {"phase": "Active"}}
    assert headers(core.NAMESPACE) == [
        ("Name", "string", "name", 0),
        ("Status", "string", "", 0),
        ("Age", "string", "", 0),
    ]
    assert cells(core.NAMESPACE, namespace) == ["kube-system", "Active", "3d"]

    config_map = {"metadata": meta("settings"), "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}
    assert headers(core.CONFIG_MAP) == [
        ("Name", "string", "name", 0),
        ("Data", "string", "", 0),
        ("Age", "string", "", 0),
    ]
    assert cells(core.CONFIG_MAP, config_map) == ["settings", 3, "3d"]

    secret = {"metadata": meta("token"), "type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}}
    assert headers(core.SECRET) == [
        ("Name", "string", "name", 0),
        ("Type", "string", "", 0),
        ("Data", "string", "", 0),
        ("Age", "string", "", 0),
    ]
    assert cells(core.SECRET, secret) == ["token", "kubernetes.io/tls", 2, "3d"]
    assert cells(core.SECRET, {"metadata": meta("s"), "type": "Opaque", "stringData": {"x": "1"}})[2] == 1

    assert headers(core.SERVICE_ACCOUNT) == [("Name", "string", "name", 0), ("Age", "string", "", 0)]
    assert cells(core.SERVICE_ACCOUNT, {"metadata": meta("default")}) == ["default", "3d"]


def test_column_descriptions_of_core_kinds() -> None:
    assert core.SECRET[2].description == descriptions.SECRET_DATA
    assert core.SERVICE[3].description.startswith("externalIPs is a list of IP addresses")
    assert core.NODE[1].description == "The status of the node"


def test_persistent_volume_columns_and_cells() -> None:
    assert headers(core.PERSISTENT_VOLUME) == [
        ("Name", "string", "name", 0),
        ("Capacity", "string", "", 0),
        ("Access Modes", "string", "", 0),
        ("Reclaim Policy", "string", "", 0),
        ("Status", "string", "", 0),
        ("Claim", "string", "", 0),
        ("StorageClass", "string", "", 0),
        ("VolumeAttributesClass", "string", "", 0),
        ("Reason", "string", "", 0),
        ("Age", "string", "", 0),
        ("VolumeMode", "string", "", 1),
    ]
    volume = {
        "metadata": {"name": "pv-1", "creationTimestamp": ago(hours=5)},
        "spec": {
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain",
            "claimRef": {"namespace": "default", "name": "data"},
            "storageClassName": "standard",
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Bound"},
    }
    assert cells(core.PERSISTENT_VOLUME, volume) == [
        "pv-1",
        "10Gi",
        "RWO,RWX",
        "Retain",
        "Bound",
        "default/data",
        "standard",
        "<unset>",
        "",
        "5h",
        "Filesystem",
    ]


def test_a_released_volume_being_deleted_with_the_beta_class_annotation() -> None:
    volume = {
        "metadata": {
            "name": "pv-2",
            "creationTimestamp": ago(hours=5),
            "deletionTimestamp": ago(seconds=5),
            "annotations": {"volume.beta.kubernetes.io/storage-class": "legacy"},
        },
        "spec": {
            "accessModes": ["ReadWriteOncePod"],
            "storageClassName": "standard",
            "volumeAttributesClassName": "gold",
        },
        "status": {"phase": "Released", "reason": "Reclaiming"},
    }
    assert cells(core.PERSISTENT_VOLUME, volume)[1:] == [
        "0",
        "RWOP",
        "",
        "Terminating",
        "",
        "legacy",
        "gold",
        "Reclaiming",
        "5h",
        "<unset>",
    ]


def test_persistent_volume_claim_columns_and_cells() -> None:
    assert headers(core.PERSISTENT_VOLUME_CLAIM) == [
        ("Name", "string", "name", 0),
        ("Status", "string", "", 0),
        ("Volume", "string", "", 0),
        ("Capacity", "string", "", 0),
        ("Access Modes", "string", "", 0),
        ("StorageClass", "string", "", 0),
        ("VolumeAttributesClass", "string", "", 0),
        ("Age", "string", "", 0),
        ("VolumeMode", "string", "", 1),
    ]
    bound = {
        "metadata": meta("data"),
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": "standard",
            "volumeName": "pv-1",
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"]},
    }
    assert cells(core.PERSISTENT_VOLUME_CLAIM, bound) == [
        "data",
        "Bound",
        "pv-1",
        "10Gi",
        "RWO",
        "standard",
        "<unset>",
        "3d",
        "Filesystem",
    ]


def test_a_pending_claim_shows_no_capacity_or_modes() -> None:
    pending = {
        "metadata": meta("data"),
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        "status": {"phase": "Pending"},
    }
    assert cells(core.PERSISTENT_VOLUME_CLAIM, pending) == [
        "data",
        "Pending",
        "",
        "",
        "",
        "",
        "<unset>",
        "3d",
        "<unset>",
    ]


def test_resource_quota_columns_and_cells() -> None:
    assert headers(core.RESOURCE_QUOTA) == [
        ("Name", "string", "name", 0),
        ("Request", "string", "", 0),
        ("Limit", "string", "", 0),
        ("Age", "string", "", 0),
    ]
    quota = {
        "metadata": meta("compute"),
        "status": {
            "hard": {"pods": "10", "requests.cpu": "4", "limits.memory": "8Gi", "limits.cpu": "8", "limits": "1"},
            "used": {"pods": "3", "requests.cpu": "500m", "limits.cpu": "1"},
        },
    }
    assert cells(core.RESOURCE_QUOTA, quota) == [
        "compute",
        "limits: 0/1, pods: 3/10, requests.cpu: 500m/4",
        "limits.cpu: 1/8, limits.memory: 0/8Gi",
        "3d",
    ]


def test_lease_columns_and_cells() -> None:
    assert headers(core.LEASE) == [("Name", "string", "name", 0), ("Holder", "string", "", 0), ("Age", "string", "", 0)]
    lease = {"metadata": meta("kube-scheduler"), "spec": {"holderIdentity": "host_1234", "leaseDurationSeconds": 15}}
    assert cells(core.LEASE, lease) == ["kube-scheduler", "host_1234", "3d"]
    assert cells(core.LEASE, {"metadata": meta("free"), "spec": {}})[1] == ""


@pytest.mark.parametrize(
    ("group", "kind", "columns"),
    [
        ("", "Service", core.SERVICE),
        ("", "Endpoints", core.ENDPOINTS),
        ("", "Node", core.NODE),
        ("", "Namespace", core.NAMESPACE),
        ("", "ConfigMap", core.CONFIG_MAP),
        ("", "Secret", core.SECRET),
        ("", "ServiceAccount", core.SERVICE_ACCOUNT),
        ("", "PersistentVolume", core.PERSISTENT_VOLUME),
        ("", "PersistentVolumeClaim", core.PERSISTENT_VOLUME_CLAIM),
        ("", "ResourceQuota", core.RESOURCE_QUOTA),
        ("coordination.k8s.io", "Lease", core.LEASE),
    ],
)
def test_core_kinds_are_registered_under_their_group(group: str, kind: str, columns: tuple[Any, ...]) -> None:
    assert columns_for(group, kind) is columns
