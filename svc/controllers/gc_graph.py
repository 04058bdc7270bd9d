"""The garbage collector's graph: every object by uid, its owners, and its dependents.

Built from informer events only (no I/O), as upstream's `GraphBuilder`: the workers read it to find
an owner's dependents, and each change returns which uids need a decision, so the rules of what to
look at again live in one place:
- an object whose owner the graph has not seen (an owner deleted long ago, or not listed yet), or has
  seen in another namespace (a reference that cannot resolve): check it;
- an owner deleting its dependents first (`foregroundDeletion`): each dependent, and the owner itself;
- an owner orphaning its dependents (`orphan`): the owner, on the orphan queue;
- a deleted object: its dependents, and any owner that waits for its dependents to go.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from svc.registry.delete import FOREGROUND, ORPHAN

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Identity:
    """Where an object is served: enough to read, patch or delete it."""

    group: str
    version: str
    resource: str
    namespace: str
    name: str


@dataclass(slots=True)
class Node:
    """One object as the graph keeps it; slotted, as there is one per object of every resource."""

    uid: str
    identity: Identity
    owners: tuple[Obj, ...]
    finalizers: tuple[str, ...]
    deleting: bool

    @property
    def deleting_dependents(self) -> bool:
        return self.deleting and FOREGROUND in self.finalizers

    @property
    def orphaning(self) -> bool:
        return self.deleting and ORPHAN in self.finalizers

    def owner_uids(self) -> set[str]:
        return {str(owner.get("uid", "")) for owner in self.owners}


@dataclass
class Work:
    """Uids to decide on after a change."""

    delete: set[str] = field(default_factory=set)
    orphan: set[str] = field(default_factory=set)


class Graph:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self._dependents: dict[str, set[str]] = defaultdict(set)

    def dependents(self, uid: str) -> list[Node]:
        return [self.nodes[d] for d in sorted(self._dependents.get(uid, ())) if d in self.nodes]

    def blocking_dependents(self, uid: str) -> list[Node]:
        """Dependents whose reference to `uid` sets `blockOwnerDeletion`: a foreground owner waits for them."""
        return [
            dependent
            for dependent in self.dependents(uid)
            if any(owner.get("uid") == uid and owner.get("blockOwnerDeletion") for owner in dependent.owners)
        ]

    def observe(self, identity: Identity, obj: Obj) -> Work:
        metadata = obj.get("metadata") or {}
        uid = str(metadata.get("uid", ""))
        work = Work()
        if not uid:
            return work
        old = self.nodes.get(uid)
        node = Node(
            uid=uid,
            identity=identity,
            owners=tuple(metadata.get("ownerReferences") or ()),
            finalizers=tuple(metadata.get("finalizers") or ()),
            deleting=bool(metadata.get("deletionTimestamp")),
        )
        old_owners = old.owner_uids() if old is not None else set()
        for owner in old_owners - node.owner_uids():
            self._dependents[owner].discard(uid)
            waiting = self.nodes.get(owner)
            if waiting is not None and waiting.deleting_dependents:
                work.delete.add(owner)
        for owner in node.owner_uids():
            self._dependents[owner].add(uid)
        self.nodes[uid] = node
        if any(self._unresolved(owner, identity) for owner in node.owner_uids()) or (
            old is not None and old.owner_uids() != node.owner_uids()
        ):
            work.delete.add(uid)
        if node.orphaning:
            work.orphan.add(uid)
        if node.deleting_dependents and (old is None or not old.deleting_dependents):
            work.delete.add(uid)
            work.delete.update(d.uid for d in self.dependents(uid))
        return work

    def _unresolved(self, owner_uid: str, identity: Identity) -> bool:
        owner = self.nodes.get(owner_uid)
        return owner is None or (bool(owner.identity.namespace) and owner.identity.namespace != identity.namespace)

    def forget(self, obj: Obj) -> Work:
        uid = str((obj.get("metadata") or {}).get("uid", ""))
        work = Work()
        node = self.nodes.pop(uid, None)
        if node is None:
            return work
        for owner in node.owner_uids():
            self._dependents[owner].discard(uid)
            if not self._dependents[owner]:
                del self._dependents[owner]
            waiting = self.nodes.get(owner)
            if waiting is not None and waiting.deleting_dependents:
                work.delete.add(owner)
        work.delete.update(self._dependents.get(uid, ()))
        return work
