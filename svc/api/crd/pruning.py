"""Pruning: the fields a CRD's schema does not declare are dropped on write, as upstream does.

A node marked `x-kubernetes-preserve-unknown-fields` keeps its unknown members (its declared ones
are still pruned below it). The object root and every `x-kubernetes-embedded-resource` keep
`apiVersion`, `kind` and `metadata`; an embedded resource's metadata keeps only ObjectMeta's fields
(the root's metadata is ObjectMeta already, checked by the generic store). The dropped paths come
back in upstream's notation (`spec.foo`, `spec.list[0].bar`) for the `unknown field` warnings.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.crd.structural import Structural

OBJECT_META_FIELDS: Final = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    }
)
_TYPE_META: Final = ("apiVersion", "kind")


def prune(obj: dict[str, Any], root: Structural) -> list[str]:
    """Drop undeclared fields from a whole custom resource in place; returns the dropped paths."""
    dropped: list[str] = []
    for key in list(obj):
        if key in _TYPE_META or key == "metadata":
            continue
        _member(obj, key, root, "", dropped)
    return dropped


def prune_value(value: Any, node: Structural | None, path: str = "") -> list[str]:
    """Drop undeclared fields below one value (a default, say) in place; returns the dropped paths."""
    dropped: list[str] = []
    _value(value, node, path, dropped)
    return dropped


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _member(obj: dict[str, Any], key: str, node: Structural, path: str, dropped: list[str]) -> None:
    sub = node.child(key)
    if sub is not None:
        _value(obj[key], sub, _join(path, key), dropped)
    elif not node.preserve_unknown:
        del obj[key]
        dropped.append(_join(path, key))


def _value(value: Any, node: Structural | None, path: str, dropped: list[str]) -> None:
    if type(value) is dict:
        if node is None:
            dropped.extend(_join(path, key) for key in value)
            value.clear()
            return
        for key in list(value):
            if node.embedded_resource and key in _TYPE_META:
                continue
            if node.embedded_resource and key == "metadata":
                _metadata(value[key], _join(path, key), dropped)
                continue
            _member(value, key, node, path, dropped)
    elif type(value) is list:
        items = node.items if node is not None else None
        for index, item in enumerate(value):
            _value(item, items, f"{path}[{index}]", dropped)


def _metadata(meta: Any, path: str, dropped: list[str]) -> None:
    if type(meta) is not dict:
        return
    for key in [key for key in meta if key not in OBJECT_META_FIELDS]:
        del meta[key]
        dropped.append(_join(path, key))
