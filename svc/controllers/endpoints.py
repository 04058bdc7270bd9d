"""The endpoints controller: a selecting Service's pods as the Endpoints object of the same name.

Upstream `pkg/controller/endpoint`: queued like the endpointslice controller (Service changes, its
pods' changes, its Endpoints changed or deleted by someone else). A sync writes one subset per set
of resolved ports, ready pods under `addresses` and the others under `notReadyAddresses`; pods
being deleted are left out unless the Service publishes not-ready addresses. A Service without a
selector is left alone; a gone Service's Endpoints is deleted.
"""

from __future__ import annotations

import json
from typing import Any

from svc.client.aio import ApiError, has_cause, resource_path
from svc.client.informer import Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import service_pods
from svc.controllers.context import ControllerContext

NAME = "endpoints-controller"
Obj = dict[str, Any]


class EndpointsController:
    def __init__(self, context: ControllerContext, *, workers: int = 5, batch_period: float = 0.0) -> None:
        self.context = context
        self.workers = workers
        self.headless_label = context.profile.label("service.kubernetes.io/headless")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.services = context.informers.informer("", "v1", "services")
        self.pods = context.informers.informer("", "v1", "pods")
        self.endpoints = context.informers.informer("", "v1", "endpoints")
        on_object = lambda obj: self.queue.add(key_of(obj))  # noqa: E731
        self.services.add_handler(
            Handler(on_add=on_object, on_update=lambda _old, new: on_object(new), on_delete=on_object)
        )
        # upstream's --endpoint-updates-batch-period: pod changes join into one sync per period
        on_pod, on_pod_update = service_pods.pod_handlers(
            self.services, lambda key: self.queue.add_after(key, batch_period)
        )
        self.pods.add_handler(Handler(on_add=on_pod, on_update=on_pod_update, on_delete=on_pod))
        self.endpoints.add_handler(Handler(on_update=lambda _old, new: on_object(new), on_delete=on_object))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        namespace, name = key.split("/", 1)
        path = resource_path("", "v1", "endpoints", namespace=namespace, name=name)
        service = self.services.get(key)
        current = self.endpoints.get(key)
        if service is None:
            if current is not None:
                try:
                    await self.context.client.delete(path)
                except ApiError as error:
                    if error.reason != "NotFound":
                        raise
            return
        if not service_pods.selector(service):
            return
        wanted = self.desired(service)
        if current is None:
            try:
                await self.context.client.create(resource_path("", "v1", "endpoints", namespace=namespace), wanted)
            except ApiError as error:
                if error.reason != "AlreadyExists" and not has_cause(error, "NamespaceTerminating"):
                    raise
            return
        labels = current["metadata"].get("labels") or {}
        if (current.get("subsets") or []) == wanted["subsets"] and labels == wanted["metadata"]["labels"]:
            return
        metadata = {**current["metadata"], "labels": wanted["metadata"]["labels"]}
        await self.context.client.update(path, {**current, "metadata": metadata, "subsets": wanted["subsets"]})

    def desired(self, service: Obj) -> Obj:
        include_terminating = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
        subsets: dict[str, Obj] = {}
        for pod in service_pods.selected_pods(service, self.pods):
            if service_pods.terminating(pod) and not include_terminating:
                continue
            ports = service_pods.pod_ports(service, pod)
            if not ports and (service.get("spec") or {}).get("ports"):
                continue
            subset = subsets.setdefault(json.dumps(ports, sort_keys=True), {"ports": ports})
            address: Obj = {"ip": service_pods.pod_ip(pod), "targetRef": service_pods.target_ref(pod)}
            node = (pod.get("spec") or {}).get("nodeName")
            if node:
                address["nodeName"] = node
            which = "addresses" if service_pods.ready(service, pod) else "notReadyAddresses"
            subset.setdefault(which, []).append(address)
        metadata = service["metadata"]
        labels = dict(metadata.get("labels") or {})
        if service_pods.headless(service):
            labels[self.headless_label] = ""
        return {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {"name": metadata["name"], "labels": labels},
            "subsets": [
                {key: subset[key] for key in ("addresses", "notReadyAddresses", "ports") if subset.get(key)}
                for subset in subsets.values()
            ],
        }
