"""The CRD controllers upstream runs inside the API server, as one level-based loop.

Every change of a CRD (from the CRD store's watch) re-runs `sync` for it: the naming decision
(`NamesAccepted`, `acceptedNames`), then `Established`, then serving, and for a CRD being deleted
the cleanup of its custom resources before the cleanup finalizer is removed. A CRD is served before
`Established` is written True, so a client that waits for the condition finds the resource served.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections.abc import Callable
from typing import Any

from svc.api.kinds.custom_resource_definitions import set_condition
from svc.apiserver.apiextensions.naming import (
    ESTABLISHED,
    ESTABLISHED_TRUE,
    NAMES_ACCEPTED,
    condition,
    is_true,
    names_and_conditions,
)
from svc.apiserver.apiextensions.serving import ServedCustomResources
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import DeleteOptions, ListOptions, WriteOptions
from svc.registry.store import GenericStore
from svc.storage import errors

Obj = dict[str, Any]
log = logging.getLogger(__name__)

CRD_GROUP = "apiextensions.k8s.io"
_RETRY_SECONDS = 0.5
_WAIT_SECONDS = 5.0
_CLEANUP_RECHECK_SECONDS = 5.0
_IN_PROGRESS = "CustomResource deletion is in progress"


def _terminating(state: str, reason: str, message: str) -> Callable[[Obj], None]:
    wanted = {"type": "Terminating", "status": state, "reason": reason, "message": message}
    return lambda obj: set_condition(obj, wanted)


def _conditions_equal(crd: Obj, wanted: Obj) -> bool:
    found = condition(crd, wanted["type"]) or {}
    return all(found.get(key) == wanted.get(key) for key in ("status", "reason", "message"))


class CrdController:
    def __init__(self, server: Any, served: ServedCustomResources) -> None:
        self.server = server
        self.served = served
        self.crds: dict[str, Obj] = {}
        self.user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
        self._store: GenericStore | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._cleanups: dict[str, asyncio.Task[None]] = {}
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self.finalizer = f"customresourcecleanup.{server.profile.group(CRD_GROUP)}"

    async def start(self) -> None:
        try:
            self._store = self.server.store_for(CRD_GROUP, "customresourcedefinitions")
        except status.StatusError:
            log.warning("the apiextensions API group is not served: no custom resources")
            return
        version = await self._list()
        for name in list(self.crds):
            await self._sync_logged(name)
        self._tasks = [
            asyncio.create_task(self._follow(version), name="crd-follow"),
            asyncio.create_task(self._work(), name="crd-sync"),
        ]

    async def stop(self) -> None:
        tasks = [*self._tasks, *self._cleanups.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks, self._cleanups = [], {}
        await self.served.stop()

    # -- following the CRDs ------------------------------------------------------------------
    async def _list(self) -> str:
        assert self._store is not None
        listed = await self._store.list("", ListOptions())
        before = set(self.crds)
        self.crds = {item["metadata"]["name"]: item for item in listed["items"]}
        for name in before | set(self.crds):
            self._queue.put_nowait(name)
        return listed["metadata"]["resourceVersion"]

    async def _follow(self, version: str) -> None:
        assert self._store is not None
        while True:
            try:
                stream = await self._store.watch("", ListOptions(resource_version=version), initial=False)
                try:
                    while (batch := await stream.next_batch(_WAIT_SECONDS)) is not None:
                        if any(event.type == "ERROR" for event in batch):
                            break
                        for event in batch:
                            name = event.object["metadata"]["name"]
                            if event.type == "DELETED":
                                self.crds.pop(name, None)
                            else:
                                self.crds[name] = event.object
                            self._queue.put_nowait(name)
                            version = event.object["metadata"]["resourceVersion"]
                finally:
                    await stream.close()
                version = await self._list()
            except asyncio.CancelledError:
                raise
            except (status.StatusError, errors.StorageError) as error:
                log.warning("CRD controller relisting after: %s", error)
                await asyncio.sleep(_RETRY_SECONDS)
                with contextlib.suppress(status.StatusError, errors.StorageError):
                    version = await self._list()

    async def _work(self) -> None:
        while True:
            name = await self._queue.get()
            await self._sync_logged(name)

    async def _sync_logged(self, name: str) -> None:
        try:
            await self.sync(name)
        except asyncio.CancelledError:
            raise
        except Exception:  # one CRD's failure must not stop the others being served
            log.exception("CRD %s failed to sync", name)

    # -- one CRD -----------------------------------------------------------------------------
    async def sync(self, name: str) -> None:
        crd = self.crds.get(name)
        if crd is None:
            if self.served.is_served(name):
                await self.served.unserve(name)
            self._requeue_group(name)
            return
        if crd["metadata"].get("deletionTimestamp"):
            self.served.mark_terminating(name)
            if name not in self._cleanups or self._cleanups[name].done():
                self._cleanups[name] = asyncio.create_task(self._clean_up(name), name=f"crd-cleanup {name}")
            return
        names, accepted, established = names_and_conditions(crd, self.crds.values())
        current_names = (crd.get("status") or {}).get("acceptedNames") or {}
        if names != current_names or not _conditions_equal(crd, accepted):

            def naming(obj: Obj) -> None:
                obj.setdefault("status", {})["acceptedNames"] = names
                set_condition(obj, accepted)
                set_condition(obj, established)

            await self._write_status(name, naming)
            self._requeue_group(name)
            return
        if not is_true(crd, NAMES_ACCEPTED):
            return
        if not is_true(crd, ESTABLISHED):
            await self.served.serve(crd)
            await self._write_status(name, lambda obj: set_condition(obj, ESTABLISHED_TRUE))
            return
        await self.served.serve(crd)

    def _requeue_group(self, name: str) -> None:
        """A CRD that changed or released names may unblock the others of its group."""
        group = name.partition(".")[2]
        for other, crd in self.crds.items():
            if other != name and (crd.get("spec") or {}).get("group") == group and not is_true(crd, NAMES_ACCEPTED):
                self._queue.put_nowait(other)

    async def _write_status(self, name: str, change: Callable[[Obj], None]) -> Obj | None:
        assert self._store is not None

        async def transform(current: Obj | None) -> Obj:
            if current is None:
                raise status.not_found(self._store.resource.group_resource, name)
            updated = copy.deepcopy(current)
            change(updated)
            return updated

        try:
            stored, _ = await self._store.update(
                "", name, transform, admission=NoAdmission(), user=self.user, options=WriteOptions(subresource="status")
            )
        except status.StatusError as error:
            if error.code in (404, 409):
                return None
            raise
        self.crds[name] = stored
        return stored

    # -- deletion ----------------------------------------------------------------------------
    async def _clean_up(self, name: str) -> None:
        """Delete every custom resource of a terminating CRD, then release it (remove the finalizer);
        a failed attempt is logged and tried again."""
        while True:
            try:
                await self._clean_up_once(name)
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cleanup of CRD %s failed; trying again", name)
                await asyncio.sleep(_CLEANUP_RECHECK_SECONDS)

    async def _clean_up_once(self, name: str) -> None:
        while True:
            crd = self.crds.get(name)
            if crd is None or self.finalizer not in (crd["metadata"].get("finalizers") or []):
                return
            await self._write_status(name, _terminating("True", "InstanceDeletionInProgress", _IN_PROGRESS))
            remaining = await self._delete_instances(name)
            if remaining:
                why = f"could not confirm zero CustomResources remaining: {remaining} remain"
                await self._write_status(name, _terminating("True", "InstanceDeletionCheck", why))
                await asyncio.sleep(_CLEANUP_RECHECK_SECONDS)
                continue
            await self._write_status(name, _terminating("False", "InstanceDeletionCompleted", "removed all instances"))
            await self._remove_finalizer(name)
            return

    async def _delete_instances(self, name: str) -> int:
        stores = self.served.stores_of(name)
        if not stores:
            return 0
        store = stores[0]
        listed = await store.list("", ListOptions())
        for item in listed["items"]:
            metadata = item["metadata"]
            with contextlib.suppress(status.StatusError):
                await store.delete(
                    metadata.get("namespace", ""),
                    metadata["name"],
                    DeleteOptions(),
                    admission=NoAdmission(),
                    user=self.user,
                )
        return len((await store.list("", ListOptions()))["items"])

    async def _remove_finalizer(self, name: str) -> None:
        assert self._store is not None
        finalizer = self.finalizer

        async def transform(current: Obj | None) -> Obj:
            if current is None:
                raise status.not_found(self._store.resource.group_resource, name)
            updated = copy.deepcopy(current)
            kept = [f for f in updated["metadata"].get("finalizers") or [] if f != finalizer]
            updated["metadata"]["finalizers"] = kept
            return updated

        with contextlib.suppress(status.StatusError):
            await self._store.update(
                "", name, transform, admission=NoAdmission(), user=self.user, options=WriteOptions()
            )
