"""The garbage collector: cascading deletion by owner references.

Upstream `pkg/controller/garbagecollector`: one metadata-only informer per deletable resource
(found through discovery, looked up again every 30 s so new custom resources are covered; events
excluded) feeds the graph (gc_graph.py); two queues of uids carry the decisions:
- attempt-to-delete: an object whose owners are all gone is deleted (background, or by its own
  propagation finalizer); references to owners that are gone or deleting in the foreground are
  removed while a live owner remains; an owner deleting in the foreground loses its
  `foregroundDeletion` finalizer once no dependent with `blockOwnerDeletion` is left.
- attempt-to-orphan: an owner deleted with `orphan` has its reference removed from every dependent,
  then loses the `orphan` finalizer.
An owner's existence is always checked by a live read (its uid must match), never from the caches,
so a dependent listed before its owner is not collected by mistake. Deletes carry uid and
resourceVersion preconditions, so an object replaced under the same name is not touched.

Owner references that cannot be valid are reported, as upstream does: a reference to an owner the
graph has seen in another namespace gets an `OwnerRefInvalidNamespace` Warning Event on the
dependent (the owner is then looked up in the dependent's namespace, found absent, and the
dependent collected); a cluster-scoped object naming a namespaced kind as owner is never collected
and not retried, since no retry can resolve it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.discovery import ApiResource, server_resources
from svc.client.events import WARNING
from svc.client.informer import Handler, Informer
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.gc_graph import Graph, Identity, Node, Work
from svc.registry.delete import FOREGROUND, ORPHAN

log = logging.getLogger(__name__)
NAME = "garbage-collector-controller"
RESYNC_MONITORS = 30.0
IGNORED = frozenset({("", "events"), ("events.k8s.io", "events")})
Obj = dict[str, Any]


class NamespacedOwnerOfClusterScopedObject(Exception):
    """Upstream's `namespacedOwnerOfClusterScopedObjectErr`: the dependent is left alone for good."""


class GarbageCollector:
    def __init__(self, context: ControllerContext, *, workers: int = 20) -> None:
        self.context = context
        self.client = context.client
        self.workers = workers
        self.graph = Graph()
        self.events = context.recorder(NAME)
        self.attempt_to_delete: RateLimitingQueue[str] = RateLimitingQueue(
            "garbage_collector_attempt_to_delete", clock=context.clock
        )
        self.attempt_to_orphan: RateLimitingQueue[str] = RateLimitingQueue(
            "garbage_collector_attempt_to_orphan", clock=context.clock
        )
        self.monitors: dict[tuple[str, str, str], Informer] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._kinds: dict[tuple[str, str], ApiResource] = {}
        ignored_groups = {(context.profile.group(group), resource) for group, resource in IGNORED}
        self._ignored = frozenset(ignored_groups)

    # --- monitors --------------------------------------------------------------------------------

    async def _discover(self) -> list[ApiResource]:
        resources = await server_resources(self.client, self.context.profile.discovery_group)
        self._kinds = {(r.api_version, r.kind): r for r in resources}
        return [
            r
            for r in resources
            if r.preferred and r.supports("delete", "list", "watch") and (r.group, r.resource) not in self._ignored
        ]

    def _monitor(self, resource: ApiResource) -> None:
        """Follow one resource through the shared factory (a controller's full informer when there is one)."""
        key = (resource.group, resource.version, resource.resource)
        if key in self.monitors:
            return
        informer = self.context.informers.metadata_informer(resource.group, resource.version, resource.resource)

        def identity(obj: Obj) -> Identity:
            metadata = obj.get("metadata") or {}
            return Identity(
                resource.group, resource.version, resource.resource, metadata.get("namespace", ""), metadata["name"]
            )

        informer.add_handler(
            Handler(
                on_add=lambda obj: self._schedule(self.graph.observe(identity(obj), obj)),
                on_update=lambda _old, obj: self._schedule(self.graph.observe(identity(obj), obj)),
                on_delete=lambda obj: self._schedule(self.graph.forget(obj)),
            )
        )
        self.monitors[key] = informer

    def _schedule(self, work: Work) -> None:
        for uid in work.delete:
            self.attempt_to_delete.add(uid)
        for uid in work.orphan:
            self.attempt_to_orphan.add(uid)

    async def _sync_monitors(self) -> None:
        """One pass of upstream's `Sync`: a monitor for every deletable resource discovery reports.

        Discovery that fails (the server is down, an aggregated API times out) skips the pass, as
        upstream's "no resources reported by discovery, skipping garbage collector sync": the monitors
        already running stay, and the next pass, a period later, tries again."""
        try:
            resources = await self._discover()
        except (ApiError, OSError) as error:
            log.warning("garbage collector: discovery failed, skipping garbage collector sync: %s", error)
            return
        for resource in resources:
            self._monitor(resource)
        self.context.informers.start()

    async def _resync_monitors(self) -> None:
        while True:
            await self.context.clock.sleep(RESYNC_MONITORS)
            await self._sync_monitors()

    async def _wait_for_monitors(self) -> None:
        """Until every monitor has listed, at most one resync period: upstream's workers then start
        anyway ("not all resource monitors could be synced, proceeding anyways"), so a resource that
        cannot be listed, or discovery that is down, does not hold back collection of the others."""
        synced = asyncio.ensure_future(asyncio.gather(*(informer.synced.wait() for informer in self.monitors.values())))
        timeout = asyncio.ensure_future(self.context.clock.sleep(RESYNC_MONITORS))
        await asyncio.wait({synced, timeout}, return_when=asyncio.FIRST_COMPLETED)
        if not self.monitors or not synced.done():
            log.info("garbage collector: not all resource monitors could be synced, proceeding anyways")
        for waiter in (synced, timeout):
            waiter.cancel()
        await asyncio.gather(synced, timeout, return_exceptions=True)

    async def run(self) -> None:
        try:
            await self._sync_monitors()
            await self._wait_for_monitors()
            self._tasks.append(asyncio.create_task(self._resync_monitors()))
            await asyncio.gather(
                run_workers(self.attempt_to_delete, self.attempt_to_delete_item, workers=self.workers, name=NAME),
                run_workers(self.attempt_to_orphan, self.attempt_to_orphan_item, workers=self.workers, name=NAME),
            )
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # --- reading and writing objects -------------------------------------------------------------

    def _path(self, identity: Identity) -> str:
        return resource_path(
            identity.group, identity.version, identity.resource, namespace=identity.namespace, name=identity.name
        )

    async def _live(self, identity: Identity, uid: str) -> Obj | None:
        """The object as stored now, or None when it is gone or another object took its name."""
        try:
            obj = await self.client.get(self._path(identity))
        except ApiError as error:
            if error.code == 404:
                return None
            raise
        return obj if obj.get("metadata", {}).get("uid") == uid else None

    async def _owner_state(self, dependent: Node, reference: Obj) -> str:
        """`solid`, `dangling` (gone, replaced, or unresolvable in scope) or `waiting` (deleting its
        dependents in the foreground)."""
        resource = self._kinds.get((str(reference.get("apiVersion", "")), str(reference.get("kind", ""))))
        if resource is None:
            raise LookupError(
                f"cannot resolve owner kind {reference.get('kind')!r} of apiVersion {reference.get('apiVersion')!r}"
            )
        if resource.namespaced and not dependent.identity.namespace:
            raise NamespacedOwnerOfClusterScopedObject("cluster-scoped objects cannot refer to namespaced owners")
        namespace = dependent.identity.namespace if resource.namespaced else ""
        identity = Identity(resource.group, resource.version, resource.resource, namespace, str(reference.get("name")))
        owner = await self._live(identity, str(reference.get("uid", "")))
        if owner is None:
            return "dangling"
        metadata = owner.get("metadata") or {}
        if metadata.get("deletionTimestamp") and FOREGROUND in (metadata.get("finalizers") or []):
            return "waiting"
        return "solid"

    async def _delete(self, node: Node, live: Obj, policy: str) -> None:
        metadata = live["metadata"]
        body = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": policy,
            "preconditions": {"uid": node.uid, "resourceVersion": metadata.get("resourceVersion")},
        }
        try:
            await self.client.delete(self._path(node.identity), body)
        except ApiError as error:
            if error.code != 404:
                raise

    async def _remove_owner_references(self, node: Node, live: Obj, owner_uids: set[str]) -> None:
        metadata = live["metadata"]
        kept = [ref for ref in metadata.get("ownerReferences") or [] if ref.get("uid") not in owner_uids]
        patch = {"metadata": {"resourceVersion": metadata.get("resourceVersion"), "ownerReferences": kept or None}}
        try:
            await self.client.patch(self._path(node.identity), patch)
        except ApiError as error:
            if error.code != 404:
                raise

    async def _remove_finalizer(self, node: Node, finalizer: str) -> None:
        live = await self._live(node.identity, node.uid)
        if live is None:
            return
        metadata = live["metadata"]
        finalizers = metadata.get("finalizers") or []
        if finalizer not in finalizers:
            return
        kept = [f for f in finalizers if f != finalizer]
        patch = {"metadata": {"resourceVersion": metadata.get("resourceVersion"), "finalizers": kept or None}}
        try:
            await self.client.patch(self._path(node.identity), patch)
        except ApiError as error:
            if error.code != 404:
                raise

    # --- decisions -------------------------------------------------------------------------------

    async def attempt_to_delete_item(self, uid: str) -> None:
        node = self.graph.nodes.get(uid)
        if node is None or (node.deleting and not node.deleting_dependents):
            return
        live = await self._live(node.identity, uid)
        if live is None:
            return
        if node.deleting_dependents:
            await self._process_deleting_dependents(node)
            return
        references = live["metadata"].get("ownerReferences") or []
        if not references:
            return
        await self._report_owners_in_other_namespaces(node, live, references)
        try:
            states = {str(ref.get("uid")): await self._owner_state(node, ref) for ref in references}
        except NamespacedOwnerOfClusterScopedObject as error:
            log.info("%s: %s/%s: %s", NAME, node.identity.resource, node.identity.name, error)
            return
        solid = {owner for owner, state in states.items() if state == "solid"}
        if solid:
            stale = {owner for owner, state in states.items() if state != "solid"}
            if stale:
                await self._remove_owner_references(node, live, stale)
            return
        waiting = any(state == "waiting" for state in states.values())
        finalizers = live["metadata"].get("finalizers") or []
        if waiting and self.graph.dependents(uid):
            policy = "Foreground"
        elif ORPHAN in finalizers:
            policy = "Orphan"
        elif FOREGROUND in finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        await self._delete(node, live, policy)

    async def _report_owners_in_other_namespaces(self, node: Node, live: Obj, references: list[Obj]) -> None:
        """Upstream's `reportInvalidNamespaceOwnerRef`, for owners the graph has seen elsewhere."""
        namespace = node.identity.namespace
        for reference in references:
            owner = self.graph.nodes.get(str(reference.get("uid", "")))
            if owner is None or not owner.identity.namespace or owner.identity.namespace == namespace:
                continue
            coordinates = (
                f"[{reference.get('apiVersion')}/{reference.get('kind')}, namespace: {namespace}, "
                f"name: {reference.get('name')}, uid: {reference.get('uid')}]"
            )
            message = f'ownerRef {coordinates} does not exist in namespace "{namespace}"'
            kind, api_version = self._kind_of(node.identity)
            await self.events.event(live, kind, api_version, WARNING, "OwnerRefInvalidNamespace", message)

    def _kind_of(self, identity: Identity) -> tuple[str, str]:
        """The dependent's kind and apiVersion, as its event's `involvedObject` names them."""
        served = (identity.group, identity.version, identity.resource)
        for (api_version, kind), resource in self._kinds.items():
            if (resource.group, resource.version, resource.resource) == served:
                return kind, api_version
        return "", ""

    async def _process_deleting_dependents(self, node: Node) -> None:
        blocking = self.graph.blocking_dependents(node.uid)
        if not blocking:
            await self._remove_finalizer(node, FOREGROUND)
            return
        for dependent in blocking:
            if not dependent.deleting:
                self.attempt_to_delete.add(dependent.uid)

    async def attempt_to_orphan_item(self, uid: str) -> None:
        node = self.graph.nodes.get(uid)
        if node is None or not node.orphaning:
            return
        for dependent in self.graph.dependents(uid):
            live = await self._live(dependent.identity, dependent.uid)
            if live is not None:
                await self._remove_owner_references(dependent, live, {uid})
        await self._remove_finalizer(node, ORPHAN)
