"""Recording Events about objects, as client-go's `tools/record` does for the controller manager.

Upstream's controllers write core/v1 Events (`source.component` and `reportingComponent` are the
controller's name, e.g. `persistentvolume-controller`); the API server stores one object that the
events.k8s.io/v1 API shows too. An event is named `<object>.<nanoseconds in hex>` in the object's
namespace (`default` for a cluster-scoped object). A repeat of the same event (same object, type,
reason, message and source) within the correlator's memory is not a new object: its `count` and
`lastTimestamp` are patched, as upstream's `EventCorrelator` does, so a controller retrying a bad
object does not flood the namespace. Recording never fails the caller: an event that cannot be
written is logged and dropped, as upstream's broadcaster drops it after its retries.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any, Protocol

from svc.client.aio import ApiError, resource_path
from svc.client.clock import Clock

log = logging.getLogger(__name__)
Obj = dict[str, Any]
NORMAL = "Normal"
WARNING = "Warning"
_REMEMBERED = 4096


class EventWriter(Protocol):
    async def create(self, path: str, body: Obj) -> Obj: ...

    async def patch(self, path: str, body: Any, *, patch_type: str = "merge") -> Obj: ...


def reference(obj: Obj, kind: str, api_version: str) -> Obj:
    """The object reference an event points at (`involvedObject`)."""
    metadata = obj.get("metadata") or {}
    ref = {"kind": kind, "namespace": metadata.get("namespace"), "name": metadata.get("name")}
    ref |= {"uid": metadata.get("uid"), "apiVersion": api_version, "resourceVersion": metadata.get("resourceVersion")}
    return {key: value for key, value in ref.items() if value}


def _timestamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class EventRecorder:
    def __init__(self, client: EventWriter, component: str, *, clock: Clock, host: str = "") -> None:
        self.client = client
        self.component = component
        self.host = host
        self.clock = clock
        self._seen: OrderedDict[tuple[str, ...], tuple[str, str, int]] = OrderedDict()

    async def event(self, obj: Obj, kind: str, api_version: str, event_type: str, reason: str, message: str) -> None:
        """Record one event about `obj` (of `kind` in `api_version`)."""
        ref = reference(obj, kind, api_version)
        namespace = ref.get("namespace") or "default"
        key = (kind, namespace, ref.get("name", ""), ref.get("uid", ""), event_type, reason, message)
        now = _timestamp(self.clock.wall())
        try:
            if key in self._seen and await self._repeat(key, now):
                return
            await self._create(key, ref, namespace, event_type, reason, message, now)
        except (ApiError, ConnectionError) as error:
            log.warning("%s: event %s on %s/%s dropped: %s", self.component, reason, namespace, ref.get("name"), error)

    async def _repeat(self, key: tuple[str, ...], now: str) -> bool:
        namespace, name, count = self._seen[key]
        self._seen.move_to_end(key)
        path = resource_path("", "v1", "events", namespace=namespace, name=name)
        try:
            await self.client.patch(path, {"count": count + 1, "lastTimestamp": now}, patch_type="strategic")
        except ApiError as error:
            if error.reason != "NotFound":
                raise
            del self._seen[key]
            return False
        self._seen[key] = (namespace, name, count + 1)
        return True

    async def _create(
        self, key: tuple[str, ...], ref: Obj, namespace: str, event_type: str, reason: str, message: str, now: str
    ) -> None:
        name = f"{ref.get('name', '')}.{int(self.clock.wall() * 1e9):x}"
        source = {"component": self.component} | ({"host": self.host} if self.host else {})
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": ref,
            "reason": reason,
            "message": message,
            "source": source,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": event_type,
            "reportingComponent": self.component,
            "reportingInstance": self.host,
        }
        await self.client.create(resource_path("", "v1", "events", namespace=namespace), body)
        self._seen[key] = (namespace, name, 1)
        if len(self._seen) > _REMEMBERED:
            self._seen.popitem(last=False)
