"""What the endpoints and endpointslice controllers both derive from a Service and its pods.

Upstream `pkg/controller/util/endpoint` and `endpointslice/util`: a Service selects pods in its
namespace by an equality selector (no selector: the controllers leave it alone); a pod counts once
it has an IP and is not terminal; it is ready when its Ready condition is true and it is not being
deleted (or always, with `publishNotReadyAddresses`); a service port's `targetPort` is a number, a
container port's name looked up in that pod, or absent (the service port itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.client.informer import NAMESPACE_INDEX, Informer

Obj = dict[str, Any]


def selector(service: Obj) -> dict[str, str]:
    return (service.get("spec") or {}).get("selector") or {}


def selects(service: Obj, pod: Obj) -> bool:
    wanted = selector(service)
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return bool(wanted) and all(labels.get(key) == value for key, value in wanted.items())


def selected_pods(service: Obj, pods: Informer) -> list[Obj]:
    """The service's pods that can be endpoints, sorted by name so results are stable."""
    namespace = service["metadata"].get("namespace", "")
    found = [pod for pod in pods.by_index(NAMESPACE_INDEX, namespace) if selects(service, pod) and pod_ip(pod)]
    found = [pod for pod in found if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    return sorted(found, key=lambda pod: pod["metadata"]["name"])


def pod_ip(pod: Obj) -> str:
    return (pod.get("status") or {}).get("podIP") or ""


def terminating(pod: Obj) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def condition_ready(pod: Obj) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def ready(service: Obj, pod: Obj) -> bool:
    if (service.get("spec") or {}).get("publishNotReadyAddresses"):
        return True
    return condition_ready(pod) and not terminating(pod)


def target_ref(pod: Obj) -> Obj:
    metadata = pod["metadata"]
    return {
        "kind": "Pod",
        "namespace": metadata.get("namespace", ""),
        "name": metadata["name"],
        "uid": metadata.get("uid", ""),
    }


def resolve_port(service_port: Obj, pod: Obj) -> int | None:
    """The pod's port behind `service_port`, or None when a named target is not in this pod."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int):
        return target
    if isinstance(target, str) and target.isdigit():
        return int(target)
    protocol = service_port.get("protocol", "TCP")
    for container in (pod.get("spec") or {}).get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("name") == target and port.get("protocol", "TCP") == protocol:
                return int(port["containerPort"])
    return None


def pod_ports(service: Obj, pod: Obj) -> list[Obj]:
    """The endpoint ports of `pod` for `service`, in service port order, unresolvable ones left out."""
    ports = []
    for service_port in (service.get("spec") or {}).get("ports") or []:
        number = resolve_port(service_port, pod)
        if number is None:
            continue
        port: Obj = {
            "name": service_port.get("name", ""),
            "port": number,
            "protocol": service_port.get("protocol", "TCP"),
        }
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def services_of_pod(pod: Obj, services: Informer) -> list[str]:
    """Keys of the services in the pod's namespace that select it."""
    namespace = (pod.get("metadata") or {}).get("namespace", "")
    return [
        f"{namespace}/{service['metadata']['name']}"
        for service in services.by_index(NAMESPACE_INDEX, namespace)
        if selects(service, pod)
    ]


def pod_handlers(
    services: Informer, enqueue: Callable[[str], None]
) -> tuple[Callable[[Obj], None], Callable[[Obj, Obj], None]]:
    """Handlers queueing every service that selects a pod before or after a change."""

    def on_pod(pod: Obj) -> None:
        for key in services_of_pod(pod, services):
            enqueue(key)

    def on_pod_update(old: Obj, new: Obj) -> None:
        for key in set(services_of_pod(old, services)) | set(services_of_pod(new, services)):
            enqueue(key)

    return on_pod, on_pod_update


def headless(service: Obj) -> bool:
    return (service.get("spec") or {}).get("clusterIP") == "None"
