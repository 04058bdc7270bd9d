"""Background loops of the API server: store compaction and namespace finalization.

Each loop takes its timing from arguments (and `sleep` can be replaced), so tests drive them
deterministically. Namespace finalization runs here, inside the API server, so that deleting a
namespace removes its content even when no controller daemon runs (the upstream namespace
controller's job, which the controller daemon can take over later).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from svc.machinery import status
from svc.registry.admission import UserInfo
from svc.registry.options import DeleteOptions, ListOptions, WriteOptions
from svc.storage import errors

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
_IDLE_WAIT = 3600.0
Sleep = Callable[[float], Awaitable[None]]


async def compaction_loop(server: Server, *, sleep: Sleep = asyncio.sleep) -> None:
    """Compact to the revision seen one interval ago, so history always spans at least one interval."""
    interval = server.options.store_compaction_interval
    if interval <= 0 or server.backend is None:
        return
    backend = server.backend
    previous = 0
    while True:
        await sleep(interval)
        current = await backend.current_revision()
        if previous and previous > await backend.compacted_revision():
            try:
                await backend.compact(previous)
            except errors.StorageError as error:
                log.warning("compaction to %d failed: %s", previous, error)
        previous = current


def _system_user(server: Server) -> UserInfo:
    return UserInfo(f"system:serviceaccount:{server.profile.system_namespace}:namespace-controller")


async def finalize_namespace(server: Server, namespace: dict[str, Any]) -> bool:
    """Delete the namespace's content; once none is left, drop the brand finalizer. True when done."""
    name = namespace["metadata"]["name"]
    user = _system_user(server)
    remaining = 0
    seen: set[str] = set()
    for store in server.stores.values():
        resource = store.resource
        if not resource.namespaced or resource.storage_prefix in seen or "delete" not in resource.verbs:
            continue
        seen.add(resource.storage_prefix)
        listed = await store.list(name, ListOptions())
        for item in listed["items"]:
            remaining += 1
            if "deletionTimestamp" in item["metadata"]:
                continue
            with contextlib.suppress(status.StatusError):
                await store.delete(
                    name,
                    item["metadata"]["name"],
                    DeleteOptions(propagation_policy="Background"),
                    admission=server.admission,
                    user=user,
                )
    if remaining:
        return False
    finalizer = server.profile.namespace_finalizer
    namespaces = server.stores[("", "v1", "namespaces")]

    async def without_finalizer(current: dict[str, Any] | None) -> dict[str, Any]:
        if current is None:
            raise status.not_found(namespaces.resource.group_resource, name)
        spec = current.setdefault("spec", {})
        spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != finalizer]
        return current

    with contextlib.suppress(status.StatusError):
        await namespaces.update(
            "",
            name,
            without_finalizer,
            admission=server.admission,
            user=user,
            options=WriteOptions(subresource="finalize"),
        )
    return True


async def namespace_finalizer_loop(server: Server, *, resync: float = 1.0) -> None:
    """Finalize terminating namespaces: on every namespace change, and every `resync` seconds while
    some namespace still waits for content with finalizers of its own."""
    namespaces = server.stores[("", "v1", "namespaces")]
    finalizer = server.profile.namespace_finalizer
    while True:
        listed = await namespaces.list("", ListOptions())
        pending = False
        for namespace in listed["items"]:
            metadata = namespace["metadata"]
            if "deletionTimestamp" not in metadata or finalizer not in (namespace.get("spec") or {}).get(
                "finalizers", []
            ):
                continue
            try:
                pending |= not await finalize_namespace(server, namespace)
            except (status.StatusError, errors.StorageError) as error:
                log.warning("finalizing namespace %s: %s", metadata["name"], error)
                pending = True
        await _wait_for_change(namespaces, listed["metadata"]["resourceVersion"], resync if pending else None)


async def _wait_for_change(namespaces: Any, version: str, limit: float | None) -> None:
    stream = await namespaces.watch("", ListOptions(resource_version=version))
    loop = asyncio.get_running_loop()
    deadline = None if limit is None else loop.time() + limit
    try:
        while deadline is None or loop.time() < deadline:
            wait = _IDLE_WAIT if deadline is None else deadline - loop.time()
            batch = await stream.next_batch(max(wait, 0.0))
            if batch is None or batch:
                return
    finally:
        await stream.close()
