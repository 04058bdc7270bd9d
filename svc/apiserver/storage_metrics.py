"""`etcd_request_duration_seconds`, `etcd_requests_total` and `etcd_request_errors_total` for our store,
whichever backend (SQLite or etcd) holds the resource.

Upstream records them in its per-resource etcd3 store; ours is one backend per engine shared by every
resource, so `MeasuredBackend` wraps the backend the object stores use and names the resource of each
key from the storage prefixes (`/registry/apps/deployments/...` is `apps` `deployments`). The operations
are upstream's: `get`, `list`, `create`, `update`, `delete`. Errors are failures of the store (an
unreachable etcd), not answers such as "exists" or "conflict", which etcd gives without an error.
Lists served from storage rather than the watch cache are counted with the objects they read and
returned (`apiserver_storage_list_*`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from prometheus_client import CollectorRegistry, Counter, Histogram

from svc.apiserver.deferred_counts import Deferred
from svc.storage import errors
from svc.storage.backend import Backend, Event, KeyValue, RangeResult

_ANSWERS = (
    errors.KeyNotFoundError,
    errors.KeyExistsError,
    errors.RevisionConflictError,
    errors.CompactedError,
    errors.FutureRevisionError,
)
GroupResource = tuple[str, str]
T = TypeVar("T")


class StorageMetrics:
    def __init__(self, registry: CollectorRegistry, buckets: tuple[float, ...]) -> None:
        self._deferred = Deferred(registry)
        labels = ["operation", "group", "resource"]
        self.durations = Histogram(
            "etcd_request_duration_seconds",
            "[ALPHA] Etcd request latency in seconds for each operation and object type.",
            labels,
            buckets=buckets,
            registry=registry,
        )
        self.requests = Counter(
            "etcd_requests",
            "[ALPHA] Etcd request counts for each operation and object type.",
            labels,
            registry=registry,
        )
        self.errors = Counter(
            "etcd_request_errors",
            "[ALPHA] Etcd failed request counts for each operation and object type.",
            labels,
            registry=registry,
        )
        self._children: dict[tuple[str, str, str], tuple[Any, Any]] = {}
        lists = ["group", "resource"]
        self.lists = Counter(
            "apiserver_storage_list", "[ALPHA] Number of LIST requests served from storage", lists, registry=registry
        )
        self.list_fetched = Counter(
            "apiserver_storage_list_fetched_objects",
            "[ALPHA] Number of objects read from storage in the course of serving a LIST request",
            lists,
            registry=registry,
        )
        self.list_evaluated = Counter(
            "apiserver_storage_list_evaluated_objects",
            "[ALPHA] Number of objects tested in the course of serving a LIST request from storage",
            lists,
            registry=registry,
        )
        self.list_returned = Counter(
            "apiserver_storage_list_returned_objects",
            "[ALPHA] Number of objects returned for a LIST request from storage",
            lists,
            registry=registry,
        )

    def list_recorder(self, group: str, resource: str) -> Callable[[int, int], None]:
        """What a resource's store calls after each list served from storage: objects read (each one
        tested against the selectors, so also the evaluated count) and returned."""
        total, fetched, evaluated, returned = (
            family.labels(group, resource)
            for family in (self.lists, self.list_fetched, self.list_evaluated, self.list_returned)
        )

        def record(read: int, kept: int) -> None:
            total.inc()
            fetched.inc(read)
            evaluated.inc(read)
            returned.inc(kept)

        return record

    def record(self, operation: str, group_resource: GroupResource, seconds: float, failed: bool) -> None:
        key = (operation, *group_resource)
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = (
                self._deferred.histogram(self.durations.labels(*key)),
                self._deferred.count(self.requests.labels(*key)),
            )
        children[0].observe(seconds)
        children[1].inc()
        if failed:
            self.errors.labels(*key).inc()


class MeasuredBackend:
    """A backend whose reads and writes are timed and counted per resource; the rest passes through."""

    def __init__(self, backend: Backend, metrics: StorageMetrics, prefixes: Iterable[tuple[str, GroupResource]]):
        self._backend = backend
        self._metrics = metrics
        self._prefixes = dict(prefixes)
        """storage prefix (`/registry/apps/deployments/`) -> (group, resource)."""
        self._depth = {prefix.count("/") for prefix in self._prefixes}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    def _resource(self, key: str) -> GroupResource:
        parts = key.split("/")
        for depth in self._depth:
            found = self._prefixes.get("/".join(parts[:depth]) + "/")
            if found is not None:
                return found
        return ("", "")

    async def _timed(self, operation: str, key: str, pending: Awaitable[T]) -> T:
        started, failed = time.perf_counter(), True
        try:
            result = await pending
            failed = False
            return result
        except _ANSWERS:
            failed = False
            raise
        finally:
            self._metrics.record(operation, self._resource(key), time.perf_counter() - started, failed)

    async def get(self, key: str) -> KeyValue | None:
        return await self._timed("get", key, self._backend.get(key))

    async def range(self, start: str, end: str, *, limit: int = 0, revision: int = 0) -> RangeResult:
        return await self._timed("list", start, self._backend.range(start, end, limit=limit, revision=revision))

    async def create(self, key: str, value: bytes) -> KeyValue:
        return await self._timed("create", key, self._backend.create(key, value))

    async def update(self, key: str, value: bytes, *, expected_revision: int) -> KeyValue:
        return await self._timed("update", key, self._backend.update(key, value, expected_revision=expected_revision))

    async def delete(self, key: str, *, expected_revision: int) -> Event:
        return await self._timed("delete", key, self._backend.delete(key, expected_revision=expected_revision))
