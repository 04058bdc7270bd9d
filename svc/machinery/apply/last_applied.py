"""Moving an object from client-side to server-side apply (upstream's last-applied manager and updater).

A client-side `kubectl apply` keeps the configuration it applied in the last-applied annotation, and
its changes are recorded as `Update`s of its own manager; a first `kubectl apply --server-side` that
changes any of those fields would conflict with that manager. Upstream lets the applier named
`kubectl` take such fields over without `--force-conflicts` when they are in the annotation with the
value still live (the user's own earlier configuration), and keeps the annotation in step with what
`kubectl` applies server-side, so a later client-side apply diffs against the right base. Any other
applier name opts out, as upstream's does.
"""

from __future__ import annotations

from typing import Any

import orjson

from svc.api.schemas import Schema
from svc.machinery.apply.conflict import ApplyConflict
from svc.machinery.apply.fieldpath import path_string
from svc.machinery.apply.manager import apply
from svc.machinery.apply.shapes import shape_of
from svc.machinery.apply.typed import TypedError, compare, field_set
from svc.machinery.gotext.values import json_marshal

Obj = dict[str, Any]
KUBECTL = "kubectl"


def apply_upgrading_last_applied(
    live: Obj | None,
    config: Obj,
    *,
    manager: str,
    force: bool,
    annotation: str,
    schema: Schema | None,
    **options: Any,
) -> Obj:
    """`apply`, with the client-side apply upgrade for the `kubectl` manager; `annotation` is the
    brand's last-applied annotation key."""
    try:
        result = apply(live, config, manager=manager, force=force, schema=schema, **options)
    except ApplyConflict as conflict:
        if manager != KUBECTL:
            raise
        allowed = _allowed_conflicts(live, annotation, schema)
        if allowed is None:
            raise
        remaining = [item for item in conflict.conflicts if item.path not in allowed]
        if remaining:
            raise ApplyConflict(remaining) from None
        result = apply(live, config, manager=manager, force=True, schema=schema, **options)
    if manager == KUBECTL and _annotations(result).get(annotation):
        result = _with_last_applied(result, config, annotation)
    return result


def _annotations(obj: Obj | None) -> dict[str, Any]:
    metadata = (obj or {}).get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return annotations if isinstance(annotations, dict) else {}


def _allowed_conflicts(live: Obj | None, annotation: str, schema: Schema | None) -> set[str] | None:
    """The fields of the last-applied configuration whose value is still the live one (as paths in
    the conflicts' spelling); None when there is no usable annotation."""
    text = _annotations(live).get(annotation)
    if not text or not isinstance(text, str) or live is None:
        return None
    try:
        last = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(last, dict) or last.get("apiVersion") != live.get("apiVersion"):
        return None
    shape = shape_of(schema)
    live_body = {**live, "metadata": {k: v for k, v in live["metadata"].items() if k != "managedFields"}}
    try:
        fields = field_set(last, shape)
        comparison = compare(last, live_body, shape)
    except TypedError:
        return None
    owned = fields - comparison.modified - comparison.added - comparison.removed
    return {path_string(path) for path in owned}


def _with_last_applied(obj: Obj, config: Obj, annotation: str) -> Obj:
    """`obj` with the annotation set to `config` without that annotation, encoded as Go encodes an
    unstructured object (sorted keys, HTML-safe, a final newline)."""
    applied = dict(config)
    metadata = applied.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("annotations"), dict):
        applied["metadata"] = {
            **metadata,
            "annotations": {k: v for k, v in metadata["annotations"].items() if k != annotation},
        }
    annotations = {**_annotations(obj), annotation: json_marshal(applied) + "\n"}
    return {**obj, "metadata": {**obj["metadata"], "annotations": annotations}}
