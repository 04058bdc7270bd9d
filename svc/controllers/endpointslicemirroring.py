"""The endpointslice-mirroring controller: hand-written Endpoints of selector-less Services as EndpointSlices.

Upstream `pkg/controller/endpointslicemirroring`: the key is an Endpoints object. It is mirrored when a
Service of the same name exists without a selector, unless it carries the
`endpointslice.kubernetes.io/skip-mirror: "true"` label (the API server's own `kubernetes` Endpoints
do) or a leader-election annotation. Subsets are first repacked (same ports merged, an address both
ready and not ready counted ready), then each subset becomes one slice per address family, with at
most `--mirroring-max-endpoints-per-subset` addresses (ready ones first); skipped and unparsable
addresses are reported as Warning events on the Endpoints. A slice carries the Endpoints' labels
(plus the service-name and managed-by labels), its annotations except the trigger-time and
last-applied ones, and a controller reference to the Endpoints. Slices no longer wanted are deleted.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from svc.client.aio import ApiError, has_cause, resource_path
from svc.client.events import WARNING
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.slice_tracker import SliceTracker

NAME = "endpointslice-mirroring-controller"
COMPONENT = "endpointslice-mirroring-controller"
MANAGER = "endpointslicemirroring-controller.k8s.io"
GROUP = "discovery.k8s.io"
Obj = dict[str, Any]


def _has_selector(service: Obj) -> bool:
    return (service.get("spec") or {}).get("selector") is not None


def repack(subsets: list[Obj]) -> list[tuple[list[Obj], list[tuple[Obj, bool]]]]:
    """Upstream's `RepackSubsets`: subsets with the same ports merged, addresses unique by IP (ready
    wins), sorted by IP; each as (ports, [(address, ready)])."""
    groups: dict[str, tuple[list[Obj], dict[str, tuple[Obj, bool]]]] = {}
    for subset in subsets:
        ports = sorted(subset.get("ports") or [], key=lambda port: (port.get("name", ""), port.get("port", 0)))
        key = json.dumps(ports, sort_keys=True)
        _, addresses = groups.setdefault(key, (ports, {}))
        for address in subset.get("addresses") or []:
            addresses[address.get("ip", "")] = (address, True)
        for address in subset.get("notReadyAddresses") or []:
            addresses.setdefault(address.get("ip", ""), (address, False))
    return [(ports, [addresses[ip] for ip in sorted(addresses)]) for ports, addresses in groups.values()]


def _endpoint(address: Obj, ready: bool) -> tuple[str, Obj] | None:
    """Upstream's `addressToEndpoint`: the address family and the endpoint, or None for a bad IP."""
    try:
        ip = ipaddress.ip_address(address.get("ip", ""))
    except ValueError:
        return None
    endpoint: Obj = {"addresses": [str(ip)], "conditions": {"ready": ready}}
    if address.get("hostname"):
        endpoint["hostname"] = address["hostname"]
    if address.get("nodeName"):
        endpoint["nodeName"] = address["nodeName"]
    if address.get("targetRef"):
        endpoint["targetRef"] = address["targetRef"]
    return ("IPv6" if ip.version == 6 else "IPv4"), endpoint


def _slice_ports(ports: list[Obj]) -> list[Obj]:
    converted = []
    for port in ports:
        entry = {"name": port.get("name", ""), "port": port.get("port"), "protocol": port.get("protocol", "TCP")}
        if port.get("appProtocol"):
            entry["appProtocol"] = port["appProtocol"]
        converted.append(entry)
    return converted


class EndpointSliceMirroringController:
    def __init__(
        self, context: ControllerContext, *, workers: int = 5, max_per_subset: int = 1000, batch_period: float = 0.0
    ) -> None:
        self.context = context
        self.workers = workers
        self.max_per_subset = max_per_subset
        label = context.profile.label
        self.service_label = label("kubernetes.io/service-name")
        self.managed_by_label = label("endpointslice.kubernetes.io/managed-by")
        self.skip_label = label("endpointslice.kubernetes.io/skip-mirror")
        self.leader_annotation = label("control-plane.alpha.kubernetes.io/leader")
        self.dropped_annotations = {
            label("endpoints.kubernetes.io/last-change-trigger-time"),
            context.profile.last_applied_annotation,
        }
        self.events = context.recorder(COMPONENT)
        self.batch_period = batch_period
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.services = context.informers.informer("", "v1", "services")
        self.endpoints = context.informers.informer("", "v1", "endpoints")
        self.slices = context.informers.informer(GROUP, "v1", "endpointslices")
        self.tracker = SliceTracker(self.slices)
        self.endpoints.add_handler(
            Handler(
                on_add=self._endpoints_changed,
                on_update=lambda old, new: self._endpoints_changed(new, old),
                on_delete=self._endpoints_changed,
            )
        )
        self.services.add_handler(
            Handler(
                on_add=self._service_changed,
                on_update=lambda old, new: self._service_changed(new, old),
                on_delete=self._service_changed,
            )
        )
        self.slices.add_handler(
            Handler(
                on_add=self._slice_changed,
                on_update=lambda _old, new: self._slice_changed(new),
                on_delete=self._slice_changed,
            )
        )

    def should_mirror(self, endpoints: Obj | None) -> bool:
        if endpoints is None:
            return False
        metadata = endpoints["metadata"]
        if (metadata.get("labels") or {}).get(self.skip_label) == "true":
            return False
        return self.leader_annotation not in (metadata.get("annotations") or {})

    def _endpoints_changed(self, endpoints: Obj, old: Obj | None = None) -> None:
        if self.should_mirror(endpoints) or self.should_mirror(old):
            self.queue.add(key_of(endpoints))

    def _service_changed(self, service: Obj, old: Obj | None = None) -> None:
        if old is None or _has_selector(service) != _has_selector(old):
            self.queue.add(key_of(service))

    def _slice_changed(self, endpoint_slice: Obj) -> None:
        labels = endpoint_slice["metadata"].get("labels") or {}
        if labels.get(self.managed_by_label) == MANAGER and labels.get(self.service_label):
            # upstream's --mirroring-endpointslice-updates-batch-period delays only slice-triggered syncs
            key = f"{endpoint_slice['metadata'].get('namespace', '')}/{labels[self.service_label]}"
            self.queue.add_after(key, self.batch_period)

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    def _mirrored(self, namespace: str, name: str) -> list[Obj]:
        return [
            endpoint_slice
            for endpoint_slice in self.slices.by_index(NAMESPACE_INDEX, namespace)
            if (labels := endpoint_slice["metadata"].get("labels") or {}).get(self.managed_by_label) == MANAGER
            and labels.get(self.service_label) == name
        ]

    async def sync(self, key: str) -> None:
        namespace, name = key.split("/", 1)
        endpoints = self.endpoints.get(key)
        service = self.services.get(key)
        current = self._mirrored(namespace, name)
        if endpoints is None or not self.should_mirror(endpoints) or service is None or _has_selector(service):
            await self._delete_all(key, current)
            return
        if self.tracker.stale(key, namespace):
            raise RequeueAfter(1.0, "the EndpointSlice cache does not show this controller's last writes yet")
        desired = await self.desired(endpoints)
        by_key = {
            self._slice_key(existing): existing for existing in sorted(current, key=lambda s: s["metadata"]["name"])
        }
        collection = resource_path(self.context.profile.group(GROUP), "v1", "endpointslices", namespace=namespace)
        for wanted in desired:
            existing = by_key.pop(self._slice_key(wanted), None)
            if existing is None:
                try:
                    self.tracker.wrote(key, await self.context.client.create(collection, wanted))
                except ApiError as error:
                    if not has_cause(error, "NamespaceTerminating"):
                        raise
            elif self._differs(existing, wanted):
                metadata = {
                    **existing["metadata"],
                    **{field: wanted["metadata"][field] for field in ("labels", "annotations", "ownerReferences")},
                }
                path = f"{collection}/{existing['metadata']['name']}"
                self.tracker.wrote(key, await self.context.client.update(path, {**wanted, "metadata": metadata}))
        await self._delete_all(key, list(by_key.values()))

    @staticmethod
    def _slice_key(endpoint_slice: Obj) -> str:
        return json.dumps([endpoint_slice.get("addressType"), endpoint_slice.get("ports")], sort_keys=True)

    @staticmethod
    def _differs(existing: Obj, wanted: Obj) -> bool:
        if existing.get("endpoints") != wanted.get("endpoints"):
            return True
        return (
            any(
                (existing["metadata"].get(field) or {}) != wanted["metadata"][field]
                for field in ("labels", "annotations")
            )
            or existing["metadata"].get("ownerReferences") != wanted["metadata"]["ownerReferences"]
        )

    async def _delete_all(self, key: str, slices: list[Obj]) -> None:
        for endpoint_slice in slices:
            metadata = endpoint_slice["metadata"]
            path = resource_path(
                self.context.profile.group(GROUP),
                "v1",
                "endpointslices",
                namespace=metadata["namespace"],
                name=metadata["name"],
            )
            try:
                await self.context.client.delete(path)
            except ApiError as error:
                if error.reason != "NotFound":
                    raise
            self.tracker.deleted(key, metadata["name"])

    async def desired(self, endpoints: Obj) -> list[Obj]:
        """The slices the Endpoints should have; skipped addresses are reported as events."""
        groups: dict[tuple[str, str], tuple[list[Obj], list[Obj]]] = {}
        invalid = skipped = 0
        for ports, addresses in repack(endpoints.get("subsets") or []):
            added = 0
            for address, ready in addresses:
                if added >= self.max_per_subset:
                    break
                converted = _endpoint(address, ready)
                if converted is None:
                    invalid += 1
                    continue
                family, endpoint = converted
                slice_ports = _slice_ports(ports)
                groups.setdefault((family, json.dumps(slice_ports, sort_keys=True)), (slice_ports, []))[1].append(
                    endpoint
                )
                added += 1
            skipped += len(addresses) - added
        if invalid:
            message = f"Skipped {invalid} invalid IP addresses when mirroring to EndpointSlices"
            await self._event(endpoints, "InvalidIPAddress", message)
        if skipped > invalid:
            message = (
                f"A max of {self.max_per_subset} addresses can be mirrored to EndpointSlices per Endpoints subset. "
                f"{skipped - invalid} addresses were skipped"
            )
            await self._event(endpoints, "TooManyAddressesToMirror", message)
        return [self._slice(endpoints, family, ports, found) for (family, _), (ports, found) in groups.items()]

    async def _event(self, endpoints: Obj, reason: str, message: str) -> None:
        await self.events.event(endpoints, "Endpoints", "v1", WARNING, reason, message)

    def _slice(self, endpoints: Obj, family: str, ports: list[Obj], found: list[Obj]) -> Obj:
        metadata = endpoints["metadata"]
        labels = {
            **(metadata.get("labels") or {}),
            self.service_label: metadata["name"],
            self.managed_by_label: MANAGER,
        }
        annotations = {
            key: value
            for key, value in (metadata.get("annotations") or {}).items()
            if key not in self.dropped_annotations
        }
        owner = {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "name": metadata["name"],
            "uid": metadata.get("uid", ""),
            "controller": True,
            "blockOwnerDeletion": True,
        }
        return {
            "apiVersion": f"{self.context.profile.group(GROUP)}/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "generateName": f"{metadata['name']}-",
                "namespace": metadata.get("namespace"),
                "labels": labels,
                "annotations": annotations,
                "ownerReferences": [owner],
            },
            "addressType": family,
            "endpoints": found,
            "ports": ports,
        }
