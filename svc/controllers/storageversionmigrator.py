"""The storage-version-migrator-controller: a StorageVersionMigration rewrites every object of one
resource, so each is stored again in the API server's current storage version (and encryption).

Upstream `pkg/controller/storageversionmigrator` (gate StorageVersionMigrator, beta and off; it also
needs the garbage collector): for a migration with neither `Succeeded` nor `Failed` condition,
first the resource's latest resourceVersion is recorded in `status.resourceVersion` (a list with
limit 1), or `Failed` (`StorageVersionMigrationFailed`, `resource does not exist in discovery`) when
discovery does not know the group and resource. Then `Running` (`StorageVersionMigrationInProgress`)
is set and each object is written back by a server-side apply that carries only its uid and
resourceVersion (field manager `storage-version-migrator-controller`, not forced): an object changed
or deleted meanwhile answers Conflict and is skipped, since it is already migrated or gone; any
other error ends in `Failed` (`migration encountered unhandled error`). At the end `Succeeded`
(`StorageVersionMigrationSucceeded`), and `Running` turns False. Upstream reads the objects from the
garbage collector's cache once it has caught up with the recorded version; this controller lists
them from the API server at a version not older than it, which gives the same set.
"""

from __future__ import annotations

from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.discovery import ApiResource, server_resources
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.deployment_math import rfc3339

NAME = "storage-version-migrator-controller"
GATE = "StorageVersionMigrator"
GROUP = "storagemigration.k8s.io"
VERSION = "v1beta1"
PAGE = 500
Obj = dict[str, Any]


def condition_true(svm: Obj, kind: str) -> bool:
    return any(
        c.get("type") == kind and c.get("status") == "True" for c in (svm.get("status") or {}).get("conditions") or []
    )


def with_condition(svm: Obj, kind: str, reason: str, message: str, now: str) -> Obj:
    """upstream's `setStatusConditions`: add the condition True once; a final one turns Running False."""
    if condition_true(svm, kind):
        return svm
    conditions = [dict(c) for c in (svm.get("status") or {}).get("conditions") or []]
    if kind in ("Succeeded", "Failed"):
        for condition in conditions:
            if condition.get("type") == "Running":
                condition["status"] = "False"
    conditions.append({"type": kind, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message})
    return {**svm, "status": {**(svm.get("status") or {}), "conditions": conditions}}


class StorageVersionMigrator:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.group = context.profile.group(GROUP)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.migrations = context.informers.informer(GROUP, VERSION, "storageversionmigrations")
        self.migrations.add_handler(
            Handler(
                on_add=lambda svm: self.queue.add(svm["metadata"]["name"]),
                on_update=lambda _old, svm: self.queue.add(svm["metadata"]["name"]),
            )
        )

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, name: str) -> None:
        svm = self.migrations.get(name)
        if svm is None or condition_true(svm, "Succeeded") or condition_true(svm, "Failed"):
            return
        resource = await self._resource(svm)
        if resource is None:
            await self._conclude(svm, "Failed", "StorageVersionMigrationFailed", "resource does not exist in discovery")
            return
        collection = resource_path(resource.group, resource.version, resource.resource)
        version = (svm.get("status") or {}).get("resourceVersion")
        if not version:
            listed = await self.context.client.get(collection, limit="1")
            status = {**(svm.get("status") or {}), "resourceVersion": listed["metadata"]["resourceVersion"]}
            await self._write_status({**svm, "status": status})
            return
        svm = await self._write_status(
            with_condition(svm, "Running", "StorageVersionMigrationInProgress", "", self._now())
        )
        try:
            async for obj in self._objects(collection, version):
                await self._rewrite(resource, obj)
        except ApiError:
            await self._conclude(
                svm, "Failed", "StorageVersionMigrationFailed", "migration encountered unhandled error"
            )
            return
        await self._conclude(svm, "Succeeded", "StorageVersionMigrationSucceeded", "")

    async def _resource(self, svm: Obj) -> ApiResource | None:
        """The preferred version of the migration's group and resource, from discovery."""
        wanted = (svm.get("spec") or {}).get("resource") or {}
        group, name = wanted.get("group", ""), wanted.get("resource", "")
        resources = await server_resources(self.context.client, self.context.profile.discovery_group)
        matches = [r for r in resources if r.resource == name and r.group in (group, self.context.profile.group(group))]
        return next((r for r in matches if r.preferred), None)

    async def _objects(self, collection: str, version: str):  # type: ignore[no-untyped-def]
        """Every object, page by page, from a list at least as new as `version`."""
        params = {"limit": str(PAGE), "resourceVersion": version, "resourceVersionMatch": "NotOlderThan"}
        while True:
            page = await self.context.client.get(collection, **params)
            for obj in page.get("items") or []:
                yield obj
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return
            params = {"limit": str(PAGE), "continue": token}

    async def _rewrite(self, resource: ApiResource, obj: Obj) -> None:
        metadata = obj["metadata"]
        path = resource_path(
            resource.group,
            resource.version,
            resource.resource,
            namespace=metadata.get("namespace", ""),
            name=metadata["name"],
        )
        body = {
            "apiVersion": resource.api_version,
            "kind": resource.kind,
            "metadata": {"uid": metadata.get("uid"), "resourceVersion": metadata.get("resourceVersion")},
        }
        try:
            await self.context.client.apply(path, body, field_manager=NAME, force=False)
        except ApiError as error:
            if error.reason not in ("Conflict", "NotFound"):
                raise

    async def _conclude(self, svm: Obj, kind: str, reason: str, message: str) -> None:
        await self._write_status(with_condition(svm, kind, reason, message, self._now()))

    async def _write_status(self, svm: Obj) -> Obj:
        path = resource_path(
            self.group, VERSION, "storageversionmigrations", name=svm["metadata"]["name"], subresource="status"
        )
        written = await self.context.client.update(path, svm)
        return written if isinstance(written, dict) and written.get("metadata") else svm

    def _now(self) -> str:
        return rfc3339(self.context.clock.wall())
