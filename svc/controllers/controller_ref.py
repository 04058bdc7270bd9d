"""Controller references: which objects a controller owns, adopting orphans and releasing strays.

Upstream's `ControllerRefManager.ClaimObjects`: an object whose controller reference names another
owner is left alone; one owned here that no longer matches the selector is released (the reference
removed); an orphan that matches is adopted (a controller reference added), unless the owner or the
object is being deleted. Adoption and release are patches guarded by the object's uid, so a
recreated object of the same name is never touched by mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.client.aio import ApiError, AsyncRestClient
from svc.machinery.labels import LabelSelector, SelectorError, label_selector_from_dict

Obj = dict[str, Any]


def controller_of(obj: Obj) -> Obj | None:
    return next((ref for ref in obj["metadata"].get("ownerReferences") or [] if ref.get("controller")), None)


def selector_of(owner: Obj) -> LabelSelector:
    """The owner's `spec.selector`; one that does not parse selects nothing (validation refuses it
    when written, so only a stored object from before a rule change can carry one)."""
    try:
        return label_selector_from_dict((owner.get("spec") or {}).get("selector"))
    except SelectorError:
        return LabelSelector.nothing()


def owned_by(objs: list[Obj], owner: Obj) -> list[Obj]:
    """The objects whose controller reference names the owner (by uid)."""
    uid = owner["metadata"]["uid"]
    return [obj for obj in objs if (controller_of(obj) or {}).get("uid") == uid]


def owner_reference(owner: Obj, api_version: str, kind: str) -> Obj:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


async def claim(
    client: AsyncRestClient,
    owner: Obj,
    children: list[Obj],
    selector: LabelSelector,
    reference: Obj,
    path_of: Callable[[Obj], str],
) -> list[Obj]:
    """The children the owner controls after adopting and releasing; refusals (a child gone or
    changed meanwhile) leave that child out."""
    owned = []
    owner_uid = owner["metadata"]["uid"]
    owner_deleting = bool(owner["metadata"].get("deletionTimestamp"))
    for child in children:
        metadata = child["metadata"]
        labels = metadata.get("labels") or {}
        ref = controller_of(child)
        if ref is not None:
            if ref.get("uid") != owner_uid:
                continue
            if selector.matches(labels):
                owned.append(child)
            elif not owner_deleting:
                others = [r for r in metadata.get("ownerReferences") or [] if r.get("uid") != owner_uid]
                await _patch(client, path_of(child), {"metadata": {"ownerReferences": others, "uid": metadata["uid"]}})
            continue
        if owner_deleting or metadata.get("deletionTimestamp") or not selector.matches(labels):
            continue
        references = [*(metadata.get("ownerReferences") or []), reference]
        if await _patch(client, path_of(child), {"metadata": {"ownerReferences": references, "uid": metadata["uid"]}}):
            owned.append(child)
    return owned


async def _patch(client: AsyncRestClient, path: str, body: Obj) -> bool:
    try:
        await client.patch(path, body)
    except ApiError as error:
        if error.reason in ("NotFound", "Conflict", "Invalid"):
            return False
        raise
    return True
