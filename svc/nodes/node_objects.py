"""The Node and Lease a simulated node registers, shaped as a kubelet writes them."""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from svc.api.brand import Profile

Obj = dict[str, Any]
KUBELET_VERSION = "v1.36.0"
LEASE_DURATION_SECONDS = 40
SIMULATED_LABEL = "simulator.svc.io/node"
"""Marks the nodes a simulator registered, so another simulator or a restart recognises them."""


def rfc3339(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def micro_time(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class NodeShape:
    """What every simulated node offers."""

    cpu: str = "4"
    memory: str = "16Gi"
    pods: str = "110"
    ephemeral_storage: str = "100Gi"
    address: str = "127.0.0.1"
    kubelet_port: int = 0


def pod_cidr(index: int) -> str:
    """Node i's pod range, 10.244.i.0/24 as a kubeadm cluster numbers them (wrapping past 255)."""
    network = ipaddress.ip_network("10.244.0.0/16")
    return str(list(network.subnets(new_prefix=24))[index % 256])


def _identifier(name: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()[:32]


def node_object(name: str, index: int, shape: NodeShape, profile: Profile, wall: float) -> Obj:
    resources = {
        "cpu": shape.cpu,
        "memory": shape.memory,
        "pods": shape.pods,
        "ephemeral-storage": shape.ephemeral_storage,
    }
    now = rfc3339(wall)

    def condition(kind: str, status: str, reason: str, message: str) -> Obj:
        return {
            "type": kind,
            "status": status,
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
            "reason": reason,
            "message": message,
        }

    cidr = pod_cidr(index)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                profile.label("kubernetes.io/hostname"): name,
                profile.label("kubernetes.io/os"): "linux",
                profile.label("kubernetes.io/arch"): "amd64",
                profile.label("beta.kubernetes.io/os"): "linux",
                profile.label("beta.kubernetes.io/arch"): "amd64",
                SIMULATED_LABEL: "true",
            },
            "annotations": {profile.label("node.alpha.kubernetes.io/ttl"): "0"},
        },
        "spec": {"podCIDR": cidr, "podCIDRs": [cidr]},
        "status": {
            "capacity": resources,
            "allocatable": dict(resources),
            "conditions": [
                condition(
                    "MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"
                ),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            # No Hostname address: the API server would prefer it for reaching the kubelet, and the
            # simulated nodes' names do not resolve.
            "addresses": [{"type": "InternalIP", "address": shape.address}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": shape.kubelet_port}},
            "nodeInfo": {
                "machineID": _identifier(name, "machine"),
                "systemUUID": _identifier(name, "system"),
                "bootID": _identifier(name, "boot"),
                "kernelVersion": "simulated",
                "osImage": "svc simulated node",
                "containerRuntimeVersion": "simulated://1.0.0",
                "kubeletVersion": KUBELET_VERSION,
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
        },
    }


def lease_object(node: Obj, profile: Profile, wall: float) -> Obj:
    """The node's heartbeat Lease, owned by its Node so it goes with it."""
    name = node["metadata"]["name"]
    return {
        "apiVersion": f"{profile.group('coordination.k8s.io')}/v1",
        "kind": "Lease",
        "metadata": {
            "name": name,
            "namespace": profile.node_lease_namespace,
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"]["uid"]},
            ],
        },
        "spec": {"holderIdentity": name, "leaseDurationSeconds": LEASE_DURATION_SECONDS, "renewTime": micro_time(wall)},
    }
