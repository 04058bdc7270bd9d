"""Removing a terminating namespace's content, with upstream's status conditions.

Upstream `pkg/controller/namespace/deletion`: every namespaced resource the server lists and deletes
(found through discovery, so custom resources are included) is emptied - by one deletecollection
where the resource supports it, else one delete per object - with background propagation, then
listed again. What is left is reported on the namespace in five conditions; objects held by
finalizers make the caller wait (an estimate of 15 s, pods their grace period) rather than fail.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.client.clock import Clock
from svc.client.discovery import ApiResource, server_resources

log = logging.getLogger(__name__)
Obj = dict[str, Any]
FINALIZER_ESTIMATE_SECONDS = 15
DEFAULT_POD_GRACE_SECONDS = 30
BACKGROUND = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}


@dataclass
class Remaining:
    """What one pass left behind."""

    estimate: int = 0
    by_resource: Counter[str] = field(default_factory=Counter)
    by_finalizer: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


def _condition(kind: str, failing: bool, reasons: tuple[str, str], messages: tuple[str, str]) -> Obj:
    return {
        "type": kind,
        "status": "True" if failing else "False",
        "reason": reasons[failing],
        "message": messages[failing],
    }


def conditions(discovery_error: str, remaining: Remaining) -> list[Obj]:
    """The five deletion conditions upstream's namespace controller keeps, in its order."""
    resources = ", ".join(
        sorted(f"{name} has {count} resource instances" for name, count in remaining.by_resource.items())
    )
    finalizers = ", ".join(
        sorted(f"{name} in {count} resource instances" for name, count in remaining.by_finalizer.items())
    )
    return [
        _condition(
            "NamespaceDeletionDiscoveryFailure",
            bool(discovery_error),
            ("ResourcesDiscovered", "DiscoveryFailed"),
            ("All resources successfully discovered", discovery_error),
        ),
        _condition(
            "NamespaceDeletionGroupVersionParsingFailure",
            False,
            ("ParsedGroupVersions", "GroupVersionParsingFailed"),
            ("All legacy kube types successfully parsed", ""),
        ),
        _condition(
            "NamespaceDeletionContentFailure",
            bool(remaining.errors),
            ("ContentDeleted", "ContentDeletionFailed"),
            ("All content successfully deleted, may be waiting on finalization", ", ".join(remaining.errors)),
        ),
        _condition(
            "NamespaceContentRemaining",
            bool(remaining.by_resource),
            ("ContentRemoved", "SomeResourcesRemain"),
            ("All content successfully removed", f"Some resources are remaining: {resources}"),
        ),
        _condition(
            "NamespaceFinalizersRemaining",
            bool(remaining.by_finalizer),
            ("ContentHasNoFinalizers", "SomeFinalizersRemain"),
            (
                "All content-preserving finalizers finished",
                f"Some content in the namespace has finalizers remaining: {finalizers}",
            ),
        ),
    ]


def merge_conditions(current: list[Obj], wanted: list[Obj], now: str) -> list[Obj]:
    """`wanted`, keeping the transition time of conditions that did not change."""
    by_type = {condition.get("type"): condition for condition in current}
    merged = []
    for condition in wanted:
        old = by_type.pop(condition["type"], None)
        same = old is not None and all(old.get(k) == condition[k] for k in ("status", "reason", "message"))
        merged.append(old if same else {**condition, "lastTransitionTime": now})
    return [*by_type.values(), *merged]


class ContentDeleter:
    def __init__(self, client: AsyncRestClient, *, discovery_group: str, metadata_group: str, clock: Clock) -> None:
        self.client = client
        self.clock = clock
        self.discovery_group = discovery_group
        self.metadata_accept = client.content.metadata_accept("PartialObjectMetadataList", metadata_group)

    async def delete_all(self, namespace: Obj) -> tuple[str, Remaining]:
        """Delete everything in the namespace once; returns the discovery error (if any) and what remains."""
        name = namespace["metadata"]["name"]
        remaining = Remaining()
        try:
            resources = await server_resources(self.client, self.discovery_group)
        except (TimeoutError, ApiError, OSError) as error:
            return str(error), remaining
        for resource in resources:
            if not (resource.namespaced and resource.preferred and resource.supports("list", "delete")):
                continue
            try:
                await self._delete_resource(name, resource, namespace, remaining)
            except ApiError as error:
                if error.code not in (404, 405):
                    remaining.errors.append(f"{resource.group_resource}: {error.status.get('message', error)}")
        return "", remaining

    async def _delete_resource(self, namespace: str, resource: ApiResource, owner: Obj, remaining: Remaining) -> None:
        path = resource_path(resource.group, resource.version, resource.resource, namespace=namespace)
        if resource.supports("deletecollection"):
            await self.client.request("DELETE", path, body=BACKGROUND)
        else:
            for item in await self._list(path):
                try:
                    await self.client.delete(f"{path}/{item['metadata']['name']}", BACKGROUND)
                except ApiError as error:
                    if error.code != 404:
                        raise
        left = await self._list(path)
        if not left:
            return
        remaining.by_resource[resource.group_resource] += len(left)
        finalizers = Counter(f for item in left for f in (item.get("metadata") or {}).get("finalizers") or ())
        remaining.by_finalizer.update(finalizers)
        estimate = (
            _pod_estimate(left, owner, self.clock.wall()) if resource.group == "" and resource.resource == "pods" else 0
        )
        if not estimate and finalizers:
            estimate = FINALIZER_ESTIMATE_SECONDS
        if not estimate:
            gvr = f"{{{resource.group} {resource.version} {resource.resource}}}"
            remaining.errors.append(f"unexpected items still remain in namespace: {namespace} for gvr: {gvr}")
        remaining.estimate = max(remaining.estimate, estimate)

    async def _list(self, path: str) -> list[Obj]:
        listed = await self.client.request("GET", path, headers={"Accept": self.metadata_accept})
        return listed.get("items") or []


def _pod_estimate(pods: list[Obj], namespace: Obj, now: float) -> int:
    """Seconds until the remaining pods' grace periods end, counted from the namespace's deletion."""
    grace = max(
        int((pod.get("metadata") or {}).get("deletionGracePeriodSeconds") or DEFAULT_POD_GRACE_SECONDS) for pod in pods
    )
    deleted_at = (namespace.get("metadata") or {}).get("deletionTimestamp")
    if not deleted_at:
        return grace
    elapsed = now - datetime.fromisoformat(deleted_at.replace("Z", "+00:00")).timestamp()
    return max(int(grace - elapsed), 1)
