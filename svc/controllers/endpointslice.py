"""The endpointslice controller: a selecting Service's pods as EndpointSlices.

Upstream `pkg/controller/endpointslice`: the key is a Service; it is queued when the Service
changes, when a pod it selects (before or after a change) changes, and when one of its managed
slices is changed or deleted by someone else. A sync groups the ready, serving and terminating pods
by the ports they resolve to, at most `max_endpoints` per slice, and creates, updates or deletes the
managed slices (labelled with the service name and the managing controller, owned by the Service) to
match. A Service without a selector is left alone; a gone Service's slices go with the garbage
collector through their owner reference. No pods: one empty placeholder slice, as upstream.

Writes are remembered until the informer shows them (upstream's `endpointSliceTracker`): a sync
that would act on a cache not yet showing its own earlier writes waits instead, since acting on it
would create duplicate slices.
"""

from __future__ import annotations

import json
from typing import Any

from svc.client.aio import ApiError, has_cause, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import service_pods
from svc.controllers.context import ControllerContext
from svc.controllers.slice_tracker import SliceTracker

NAME = "endpointslice-controller"
MANAGER = "endpointslice-controller.k8s.io"
GROUP = "discovery.k8s.io"
Obj = dict[str, Any]


class EndpointSliceController:
    def __init__(
        self, context: ControllerContext, *, workers: int = 5, max_endpoints: int = 100, batch_period: float = 0.0
    ) -> None:
        self.context = context
        self.workers = workers
        self.max_endpoints = max_endpoints
        self.service_label = context.profile.label("kubernetes.io/service-name")
        self.managed_by_label = context.profile.label("endpointslice.kubernetes.io/managed-by")
        self.headless_label = context.profile.label("service.kubernetes.io/headless")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.services = context.informers.informer("", "v1", "services")
        self.pods = context.informers.informer("", "v1", "pods")
        self.slices = context.informers.informer(GROUP, "v1", "endpointslices")
        on_service = lambda service: self.queue.add(key_of(service))  # noqa: E731
        self.services.add_handler(Handler(on_add=on_service, on_update=lambda _old, new: on_service(new)))
        # upstream's --endpointslice-updates-batch-period: pod changes join into one sync per period
        on_pod, on_pod_update = service_pods.pod_handlers(
            self.services, lambda key: self.queue.add_after(key, batch_period)
        )
        self.pods.add_handler(Handler(on_add=on_pod, on_update=on_pod_update, on_delete=on_pod))
        self.slices.add_handler(
            Handler(on_add=self._managed, on_update=lambda _old, new: self._managed(new), on_delete=self._managed)
        )
        self.tracker = SliceTracker(self.slices)

    def _managed(self, endpoint_slice: Obj) -> None:
        labels = (endpoint_slice.get("metadata") or {}).get("labels") or {}
        if labels.get(self.managed_by_label) == MANAGER and labels.get(self.service_label):
            self.queue.add(f"{endpoint_slice['metadata'].get('namespace', '')}/{labels[self.service_label]}")

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        service = self.services.get(key)
        if service is None or not service_pods.selector(service):
            return
        namespace, name = key.split("/", 1)
        if self.tracker.stale(key, namespace):
            raise RequeueAfter(1.0, "the EndpointSlice cache does not show this controller's last writes yet")
        current = sorted(self._current(namespace, name), key=lambda s: s["metadata"]["name"])
        desired = self.desired(service)
        collection = resource_path(self.context.profile.group(GROUP), "v1", "endpointslices", namespace=namespace)
        for existing, wanted in zip(current, desired, strict=False):
            if any(existing.get(field) != wanted.get(field) for field in ("addressType", "endpoints", "ports")) or any(
                existing["metadata"].get(field) != wanted["metadata"][field] for field in ("labels", "ownerReferences")
            ):
                metadata = {**existing["metadata"], **{k: wanted["metadata"][k] for k in ("labels", "ownerReferences")}}
                path = f"{collection}/{existing['metadata']['name']}"
                self.tracker.wrote(key, await self.context.client.update(path, {**wanted, "metadata": metadata}))
        for wanted in desired[len(current) :]:
            try:
                self.tracker.wrote(key, await self.context.client.create(collection, wanted))
            except ApiError as error:
                if not has_cause(error, "NamespaceTerminating"):
                    raise
        for stale in current[len(desired) :]:
            try:
                await self.context.client.delete(f"{collection}/{stale['metadata']['name']}")
            except ApiError as error:
                if error.reason != "NotFound":
                    raise
            self.tracker.deleted(key, stale["metadata"]["name"])

    def _current(self, namespace: str, service: str) -> list[Obj]:
        found = []
        for endpoint_slice in self.slices.by_index(NAMESPACE_INDEX, namespace):
            labels = endpoint_slice["metadata"].get("labels") or {}
            if labels.get(self.managed_by_label) == MANAGER and labels.get(self.service_label) == service:
                found.append(endpoint_slice)
        return found

    def desired(self, service: Obj) -> list[Obj]:
        """The slices `service` should have: endpoints grouped by resolved ports, chunked."""
        address_type = ((service.get("spec") or {}).get("ipFamilies") or ["IPv4"])[0]
        groups: dict[str, list[Obj]] = {}
        for pod in service_pods.selected_pods(service, self.pods):
            ip = service_pods.pod_ip(pod)
            if (":" in ip) != (address_type == "IPv6"):
                continue
            ports = service_pods.pod_ports(service, pod)
            groups.setdefault(json.dumps(ports, sort_keys=True), []).append(self._endpoint(service, pod))
        if not groups:
            return [self._slice(service, address_type, [], [])]
        slices = []
        for ports_text, endpoints in groups.items():
            for start in range(0, len(endpoints), self.max_endpoints):
                chunk = endpoints[start : start + self.max_endpoints]
                slices.append(self._slice(service, address_type, json.loads(ports_text), chunk))
        return slices

    def _endpoint(self, service: Obj, pod: Obj) -> Obj:
        serving = service_pods.condition_ready(pod) or bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
        endpoint: Obj = {
            "addresses": [service_pods.pod_ip(pod)],
            "conditions": {
                "ready": service_pods.ready(service, pod),
                "serving": serving,
                "terminating": service_pods.terminating(pod),
            },
            "targetRef": service_pods.target_ref(pod),
        }
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            endpoint["nodeName"] = node
        return endpoint

    def _slice(self, service: Obj, address_type: str, ports: list[Obj], endpoints: list[Obj]) -> Obj:
        metadata = service["metadata"]
        labels = {
            **(metadata.get("labels") or {}),
            self.service_label: metadata["name"],
            self.managed_by_label: MANAGER,
        }
        if service_pods.headless(service):
            labels[self.headless_label] = ""
        owner = {
            "apiVersion": "v1",
            "kind": "Service",
            "name": metadata["name"],
            "uid": metadata.get("uid", ""),
            "controller": True,
            "blockOwnerDeletion": True,
        }
        return {
            "apiVersion": f"{self.context.profile.group(GROUP)}/v1",
            "kind": "EndpointSlice",
            "metadata": {"generateName": f"{metadata['name']}-", "labels": labels, "ownerReferences": [owner]},
            "addressType": address_type,
            "endpoints": endpoints,
            "ports": ports,
        }
