"""Recording Events about objects, as client-go's `tools/record` does for the controller manager.

Upstream's controllers write core/v1 Events (`source.component` and `reportingComponent` are the
controller's name, e.g. `persistentvolume-controller`); the API server stores one object that the
events.k8s.io/v1 API shows too. An event is named `<object>.<nanoseconds in hex>` in the object's
namespace (`default` for a cluster-scoped object). Before it is written, client-go's correlator
(`event_correlator.py`) decides: a repeat patches the first event's `count` and `lastTimestamp`,
many similar events are combined, and a source spamming one object is cut off. Recording never
fails the caller: an event that cannot be written is logged and dropped, as upstream's broadcaster
drops it after its retries.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any, Protocol

from svc.client.aio import ApiError, resource_path
from svc.client.clock import Clock
from svc.client.event_correlator import Correlated, EventCorrelator

log = logging.getLogger(__name__)
Obj = dict[str, Any]
NORMAL = "Normal"
WARNING = "Warning"


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
        self.correlator = EventCorrelator(clock)

    async def event(self, obj: Obj, kind: str, api_version: str, event_type: str, reason: str, message: str) -> None:
        """Record one event about `obj` (of `kind` in `api_version`), unless the correlator drops it."""
        ref = reference(obj, kind, api_version)
        namespace = ref.get("namespace") or "default"
        wall = self.clock.wall()
        now = _timestamp(wall)
        name = f"{ref.get('name', '')}.{int(wall * 1e9):x}"
        correlated = self.correlator.correlate(
            self._new(name, namespace, ref, event_type, reason, message, now), stamp=now, name=name
        )
        if correlated is None:
            log.debug("%s: event %s on %s/%s dropped as spam", self.component, reason, namespace, ref.get("name"))
            return
        try:
            written = await self._write(correlated)
        except (ApiError, OSError) as error:
            log.warning("%s: event %s on %s/%s dropped: %s", self.component, reason, namespace, ref.get("name"), error)
            return
        self.correlator.update_state(written)

    def _new(self, name: str, namespace: str, ref: Obj, event_type: str, reason: str, message: str, now: str) -> Obj:
        source = {"component": self.component} | ({"host": self.host} if self.host else {})
        return {
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

    async def _write(self, correlated: Correlated) -> Obj:
        """Patch the earlier event; create it when there is none or it has gone (expired by its TTL)."""
        event = correlated.event
        namespace, name = event["metadata"]["namespace"], event["metadata"]["name"]
        written: Obj | None = None
        if correlated.patch is not None:
            path = resource_path("", "v1", "events", namespace=namespace, name=name)
            try:
                written = await self.client.patch(path, correlated.patch, patch_type="strategic")
            except ApiError as error:
                if error.reason != "NotFound":
                    raise
        if written is None:
            written = await self.client.create(resource_path("", "v1", "events", namespace=namespace), event)
        return written if isinstance(written, dict) and "metadata" in written else event
