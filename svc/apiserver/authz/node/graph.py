"""Which objects each node is related to: the index behind the Node authorizer.

Upstream keeps a graph of vertices and edges (pod -> node, secret -> pod, pvc -> pod, pv -> pvc,
secret -> pv, volumeattachment -> node, resourceslice -> node) and walks it per request. The paths a
walk can take are fixed and at most three edges long, so this index stores them directly: per node, a
count of the references its pods hold, and per volume its claim and secrets. A question is then a
dictionary lookup or two, and an update touches one pod's references.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from svc.apiserver.authz.node.references import (
    CLAIMS,
    SECRETS,
    Reference,
    pod_references,
    volume_claim,
    volume_secrets,
)

Obj = dict[str, Any]

PODS = "pods"
VOLUMES = "persistentvolumes"
ATTACHMENTS = "volumeattachments"
SLICES = "resourceslices"


def _key(obj: Obj) -> tuple[str, str]:
    metadata = obj.get("metadata") or {}
    return metadata.get("namespace") or "", metadata.get("name") or ""


class NodeGraph:
    """The relationships of nodes to the objects they may read; fed by `svc.apiserver.authz.follow`."""

    def __init__(self) -> None:
        self._pods: dict[tuple[str, str], tuple[str, frozenset[Reference]]] = {}
        self._references: defaultdict[str, Counter[Reference]] = defaultdict(Counter)
        self._volumes: dict[str, tuple[tuple[str, str] | None, frozenset[tuple[str, str]]]] = {}
        self._volumes_by_secret: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
        self._node_of: dict[str, dict[str, str]] = {ATTACHMENTS: {}, SLICES: {}}

    # -- the index protocol -------------------------------------------------------------------
    def reset(self, resource: str, objs: list[Obj]) -> None:
        if resource == PODS:
            self._pods.clear()
            self._references.clear()
        elif resource == VOLUMES:
            self._volumes.clear()
            self._volumes_by_secret.clear()
        elif resource in self._node_of:
            self._node_of[resource].clear()
        for obj in objs:
            self.put(resource, obj)

    def put(self, resource: str, obj: Obj) -> None:
        self.remove(resource, obj)
        key = _key(obj)
        spec = obj.get("spec") or {}
        if resource == PODS:
            node = spec.get("nodeName")
            if isinstance(node, str) and node:
                references = frozenset(pod_references(obj))
                self._pods[key] = (node, references)
                self._references[node].update(references)
        elif resource == VOLUMES:
            secrets = frozenset(volume_secrets(obj))
            self._volumes[key[1]] = (volume_claim(obj), secrets)
            for secret in secrets:
                self._volumes_by_secret[secret].add(key[1])
        elif resource in self._node_of:
            node = spec.get("nodeName")
            if isinstance(node, str) and node:
                self._node_of[resource][key[1]] = node

    def remove(self, resource: str, obj: Obj) -> None:
        key = _key(obj)
        if resource == PODS:
            held = self._pods.pop(key, None)
            if held is not None:
                node, references = held
                counts = self._references[node]
                counts.subtract(references)
                for reference in references:
                    if counts[reference] <= 0:
                        del counts[reference]
                if not counts:
                    del self._references[node]
        elif resource == VOLUMES:
            held_volume = self._volumes.pop(key[1], None)
            if held_volume is not None:
                for secret in held_volume[1]:
                    names = self._volumes_by_secret[secret]
                    names.discard(key[1])
                    if not names:
                        del self._volumes_by_secret[secret]
        elif resource in self._node_of:
            self._node_of[resource].pop(key[1], None)

    # -- questions ----------------------------------------------------------------------------
    def related(self, node: str, resource: str, namespace: str, name: str) -> bool:
        """Whether a path leads from the object to the node."""
        if resource == PODS:
            held = self._pods.get((namespace, name))
            return held is not None and held[0] == node
        if resource in self._node_of:
            return self._node_of[resource].get(name) == node
        references = self._references.get(node)
        if not references:
            return False
        if resource == VOLUMES:
            volume = self._volumes.get(name)
            return volume is not None and volume[0] is not None and (CLAIMS, *volume[0]) in references
        if (resource, namespace, name) in references:
            return True
        if resource == SECRETS:
            return any(
                self.related(node, VOLUMES, "", volume) for volume in self._volumes_by_secret.get((namespace, name), ())
            )
        return False
