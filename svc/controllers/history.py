"""ControllerRevisions: the template history of DaemonSets and StatefulSets.

Upstream `pkg/controller/history`: each distinct pod template is stored once as a ControllerRevision
named `<owner>-<hash>`, whose `data` is the patch that restores it (`{"spec": {"template": {...,
"$patch": "replace"}}}`) and whose `revision` number orders them; pods carry the hash in their
`controller-revision-hash` label. Returning to an earlier template re-numbers its revision as the
newest (that is what `kubectl rollout undo` relies on). Revisions beyond `revisionHistoryLimit` that
no pod uses are deleted, oldest first.
"""

from __future__ import annotations

import copy
from typing import Any

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.controllers.controller_ref import owner_reference
from svc.controllers.deployment_math import template_hash

Obj = dict[str, Any]
HASH_LABEL = "controller-revision-hash"


def revision_data(template: Obj) -> Obj:
    return {"spec": {"template": {**copy.deepcopy(template), "$patch": "replace"}}}


def revision_number(revision: Obj) -> int:
    return revision.get("revision") or 0


class History:
    def __init__(self, client: AsyncRestClient, apps_group: str) -> None:
        self.client = client
        self.apps = apps_group

    def _path(self, namespace: str, name: str = "") -> str:
        return resource_path(self.apps, "v1", "controllerrevisions", namespace=namespace, name=name)

    async def record(self, owner: Obj, kind: str, revisions: list[Obj]) -> tuple[Obj, int]:
        """The revision of the owner's current template (created or re-numbered as the newest), and
        the owner's collision count (raised when a hash name was taken by another template)."""
        metadata = owner["metadata"]
        template = owner["spec"].get("template") or {}
        data = revision_data(template)
        newest = max((revision_number(r) for r in revisions), default=0)
        same = [r for r in revisions if r.get("data") == data]
        if same:
            chosen = max(same, key=revision_number)
            if revision_number(chosen) != newest:
                chosen = await self.client.update(
                    self._path(metadata["namespace"], chosen["metadata"]["name"]), {**chosen, "revision": newest + 1}
                )
            return chosen, (owner.get("status") or {}).get("collisionCount") or 0
        collisions = (owner.get("status") or {}).get("collisionCount") or 0
        while True:
            digest = template_hash(data, collisions)
            body = {
                "apiVersion": f"{self.apps}/v1",
                "kind": "ControllerRevision",
                "metadata": {
                    "name": f"{metadata['name']}-{digest}",
                    "namespace": metadata["namespace"],
                    "labels": {**((template.get("metadata") or {}).get("labels") or {}), HASH_LABEL: digest},
                    "ownerReferences": [owner_reference(owner, f"{self.apps}/v1", kind)],
                },
                "data": data,
                "revision": newest + 1,
            }
            try:
                return await self.client.create(self._path(metadata["namespace"]), body), collisions
            except ApiError as error:
                if error.reason != "AlreadyExists":
                    raise
            existing = await self.client.get(self._path(metadata["namespace"], body["metadata"]["name"]))
            if existing.get("data") == data:
                return existing, collisions
            collisions += 1

    async def truncate(self, owner: Obj, revisions: list[Obj], live_hashes: set[str]) -> None:
        """Delete the oldest revisions no pod uses, beyond the owner's history limit."""
        limit = owner["spec"].get("revisionHistoryLimit", 10)
        idle = [r for r in revisions if (r["metadata"].get("labels") or {}).get(HASH_LABEL) not in live_hashes]
        idle.sort(key=revision_number)
        for revision in idle[: max(len(idle) - limit, 0)]:
            try:
                await self.client.delete(self._path(revision["metadata"]["namespace"], revision["metadata"]["name"]))
            except ApiError as error:
                if error.reason != "NotFound":
                    raise


def hash_of(revision: Obj) -> str:
    return (revision["metadata"].get("labels") or {}).get(HASH_LABEL, "")
