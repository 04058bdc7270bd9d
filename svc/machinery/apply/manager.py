"""managedFields bookkeeping for every write, and server-side apply itself, as pure functions.

Two entry points, one per kind of write:
- `update_managed_fields` for create, update and non-apply patches: the fields the write changed
  become the writer's (operation `Update`) and stop being anyone else's;
- `apply` for `application/apply-patch+yaml`: the configuration is merged into the live object, the
  applier owns exactly the fields it sent, fields it sent last time and no longer sends are removed
  unless someone else also owns them, and changing a field someone else owns is a conflict unless
  forced.
Both also keep upstream's bookkeeping rules: metadata identity fields are never owned, per-type
`ignored` fields (e.g. `status` on the main resource) are neither owned nor compared, a write that
changes nothing keeps every time stamp, and at most ten updaters keep their own entry.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from svc.api.schemas import Schema
from svc.machinery import gotext
from svc.machinery.apply import entries
from svc.machinery.apply.conflict import ApplyConflict, Conflict
from svc.machinery.apply.created_fields import created_fields
from svc.machinery.apply.entries import APPLY, UPDATE, Managed, ManagedFieldsError, ManagerKey, Owned
from svc.machinery.apply.field_filter import NO_FILTER, FieldFilter, pattern
from svc.machinery.apply.fieldpath import FieldSet, make_path, path_string
from svc.machinery.apply.shapes import Shape, shape_of
from svc.machinery.apply.typed import (
    Comparison,
    TypedError,
    compare,
    ensure_named_fields_are_members,
    field_set,
    merge,
    remove_items,
    values_equal,
)
from svc.machinery.apply.validation import validated_field_set
from svc.machinery.status import bad_request

BEFORE_FIRST_APPLY = "before-first-apply"

# Identity and server-maintained fields no write ever owns (upstream strips them from the writer's set).
STRIPPED = FieldSet.of(
    make_path("apiVersion"),
    make_path("kind"),
    make_path("metadata"),
    make_path("metadata", "name"),
    make_path("metadata", "namespace"),
    make_path("metadata", "creationTimestamp"),
    make_path("metadata", "selfLink"),
    make_path("metadata", "uid"),
    make_path("metadata", "clusterName"),
    make_path("metadata", "generation"),
    make_path("metadata", "managedFields"),
    make_path("metadata", "resourceVersion"),
)

# Stands for the write being recorded until its changes are folded into the writer's entry.
_CURRENT = ManagerKey("current-operation", UPDATE)


def ignored_fields(
    reset: Iterable[Sequence[str]] = (), *, keep_only: Iterable[Sequence[str]] | None = None
) -> FieldFilter:
    """The fields a write neither owns nor competes for: the `reset` paths its strategy copies back
    from the stored object (upstream's reset fields) and the deletion fields only the server sets; with
    `keep_only` (patterns, `*` for any one step), also every field outside them."""
    deletion = [make_path("metadata", "deletionTimestamp"), make_path("metadata", "deletionGracePeriodSeconds")]
    reset_set = FieldSet([*deletion, *(make_path(*path) for path in reset)])
    if keep_only is None:
        return FieldFilter(reset_set)
    return FieldFilter(reset_set, tuple(pattern(steps) for steps in keep_only))


@functools.lru_cache(maxsize=16)
def default_ignored(*, status_subresource: bool, subresource: str = "") -> FieldFilter:
    """`ignored_fields` under the generic rule: when the type has a status subresource, writes to the
    main resource leave `status` alone and writes to `status` leave `spec` alone."""
    if status_subresource and subresource == "":
        return ignored_fields([("status",)])
    return ignored_fields([("spec",)] if subresource == "status" else [])


def update_managed_fields(
    live: dict[str, Any] | None,
    new: dict[str, Any],
    *,
    manager: str,
    operation_time: str,
    subresource: str = "",
    schema: Schema | None,
    ignored: FieldFilter | None = None,
) -> dict[str, Any]:
    """`new` with `metadata.managedFields` recording a create (`live` None), update or patch.

    The request's own managedFields replace the tracked ones when they are valid and non-empty
    (except through a subresource), `[]` or `[{}]` clears them; invalid ones are ignored in favour
    of the live object's, as upstream does. An existing object that tracks nothing stays untracked
    until it is applied to. An object whose lists cannot be matched item by item keeps the live
    object's managedFields; only a non-object `metadata` raises TypedError.
    """
    _check_time(operation_time)
    metadata = _metadata_map(new)
    result = {**new, "metadata": dict(metadata or {})}
    requested = result["metadata"].pop("managedFields", None)
    live_entries = _entries_of(live)
    managed = _tracking_base(requested, live_entries, subresource)
    if not managed.sets and live is not None:
        return result
    api_version = new.get("apiVersion") or (live or {}).get("apiVersion", "")
    key = ManagerKey(manager or "unknown", UPDATE, api_version, subresource)
    shape = shape_of(schema)
    try:
        _record_update(managed, _body(live), _body(new), key, shape, ignored or NO_FILTER, operation_time)
    except TypedError:
        if live_entries is not None:
            result["metadata"]["managedFields"] = _copy(live_entries)
        return result
    entries.cap_update_managers(managed)
    return _with_entries(result, managed)


def apply(
    live: dict[str, Any] | None,
    config: dict[str, Any],
    *,
    manager: str,
    force: bool,
    operation_time: str,
    subresource: str = "",
    schema: Schema | None,
    ignored: FieldFilter | None = None,
) -> dict[str, Any]:
    """The object after applying `config` to `live` (created when `live` is None), with managedFields.

    Raises ApplyConflict (unless `force`), TypedError for a configuration that does not fit the schema
    (without one, for a `metadata` that is not a map), StatusError 400 for a configuration that carries
    managedFields, and ManagedFieldsError when the live object's managedFields cannot be read. An apply
    that changes nothing returns the live object with its time stamps untouched, so repeating an apply
    is a no-op.
    """
    _check_time(operation_time)
    if not isinstance(config, dict):
        raise bad_request("error decoding patch: the apply configuration must be an object")
    metadata = config.get("metadata")
    if isinstance(metadata, dict) and metadata.get("managedFields") is not None:
        raise bad_request("metadata.managedFields must be nil")
    shape = shape_of(schema)
    applied = validated_field_set(config, shape)
    _metadata_map(config)  # the schema has checked it, unless there is none
    try:
        managed = entries.decode(_entries_of(live))
    except ManagedFieldsError as error:
        raise ManagedFieldsError(f"failed to decode managed fields: {error}") from None
    before = _copy(_body(live))
    config = _copy(config)
    ignored = ignored or NO_FILTER
    api_version = config.get("apiVersion") or before.get("apiVersion", "")
    if not managed.sets:
        first = ManagerKey(BEFORE_FIRST_APPLY, UPDATE, api_version, subresource)
        _record_update(managed, {}, before, first, shape, ignored, operation_time)

    key = ManagerKey(manager or "unknown", APPLY, "", subresource)
    last = managed.sets.get(key)
    managed.sets[key] = Owned(ignored.owned(applied), api_version, True)
    after = _prune(merge(before, config, shape), managed, key, last, shape)
    _settle(managed, _comparison(before, after, shape, ignored), writer=key, force=force)
    if key in managed.sets:
        managed.set(key, Owned(managed.sets[key].fields - STRIPPED, api_version, True))
    if values_equal(before, after):
        after = before
    else:
        managed.times[key] = operation_time
    return _with_entries(after, managed)


def _copy(value: Any) -> Any:
    """A deep copy of a JSON value; orjson's round trip is several times faster than copy.deepcopy,
    which remains for what JSON cannot hold (integers beyond 64 bits)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except orjson.JSONEncodeError:
        return copy.deepcopy(value)


def _record_update(
    managed: Managed,
    before: dict[str, Any],
    after: dict[str, Any],
    key: ManagerKey,
    shape: Shape,
    ignored: FieldFilter,
    operation_time: str,
) -> None:
    """Give `key` the fields that changed from `before` to `after`, taking them from everyone else."""
    comparison = _comparison(before, after, shape, ignored)
    _settle(managed, comparison, writer=_CURRENT, force=True)
    changed = (comparison.modified | comparison.added) - STRIPPED
    if not changed:
        return
    previous = managed.sets.get(key)
    owned = changed | previous.fields if previous is not None else changed
    managed.sets[key] = Owned(owned, key.api_version, False)
    managed.times[key] = operation_time


def _comparison(before: dict[str, Any], after: dict[str, Any], shape: Shape, ignored: FieldFilter) -> Comparison:
    if not before:
        return created_fields(after, shape, ignored)
    return compare(before, after, shape, zero_values=True).within(ignored.owned)


def _settle(managed: Managed, comparison: Comparison, *, writer: ManagerKey, force: bool) -> None:
    """Take changed fields away from other managers, or raise the conflicts when not forced."""
    changed = comparison.modified | comparison.added
    taken = {key: owned.fields & changed for key, owned in managed.sets.items() if key != writer}
    taken = {key: fields for key, fields in taken.items() if fields}
    if taken and not force:
        ordered = sorted(taken, key=ManagerKey.identifier)
        conflicts = [Conflict(key.manager, key, path_string(path)) for key in ordered for path in taken[key]]
        raise ApplyConflict(conflicts)
    for key, owned in list(managed.sets.items()):
        if key == writer:
            continue
        remaining = owned.fields - taken.get(key, FieldSet()) - comparison.removed
        managed.set(key, Owned(remaining, owned.api_version, owned.applied))


def _prune(
    merged: dict[str, Any], managed: Managed, applier: ManagerKey, last: Owned | None, shape: Shape
) -> dict[str, Any]:
    """Remove what `applier` applied last time and dropped now, unless another manager owns it.

    When nothing was dropped the three removal passes below provably remove nothing, so they are
    skipped; that keeps the common repeated apply cheap.
    """
    if last is None or not (last.fields - managed.sets[applier].fields):
        return merged

    def named(fields: FieldSet) -> FieldSet:
        return ensure_named_fields_are_members(fields, shape)

    last_fields = named(last.fields)
    merged_fields = named(field_set(merged, shape))
    owned = FieldSet()
    for other in managed.sets.values():
        owned |= other.fields
    pruned = remove_items(merged, last_fields, shape)
    kept = named(field_set(pruned, shape)) | named(owned)
    pruned = remove_items(merged, merged_fields - kept, shape)
    dangling = (merged_fields - named(field_set(pruned, shape))) & last_fields
    return remove_items(merged, dangling, shape)


def _tracking_base(requested: Any, live_entries: Any, subresource: str) -> Managed:
    """Upstream's choice between the request's managedFields and the live object's."""
    if not subresource:
        if requested == [] or (isinstance(requested, list) and len(requested) == 1 and _is_empty(requested[0])):
            return Managed()
        try:
            managed = entries.decode(requested)
        except ManagedFieldsError:
            managed = Managed()
        if managed.sets:
            return managed
    try:
        return entries.decode(live_entries)
    except ManagedFieldsError:
        return Managed()


def _is_empty(entry: Any) -> bool:
    return isinstance(entry, dict) and all(value in (None, "") for value in entry.values())


def _entries_of(obj: dict[str, Any] | None) -> Any:
    metadata = (obj or {}).get("metadata")
    return metadata.get("managedFields") if isinstance(metadata, dict) else None


def _body(obj: dict[str, Any] | None) -> dict[str, Any]:
    """The object without its managedFields, which are bookkeeping, not content."""
    if obj is None:
        return {}
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or "managedFields" not in metadata:
        return obj
    return {**obj, "metadata": {name: value for name, value in metadata.items() if name != "managedFields"}}


def _with_entries(obj: dict[str, Any], managed: Managed) -> dict[str, Any]:
    metadata = dict(obj.get("metadata") or {})
    metadata.pop("managedFields", None)
    if managed.sets:
        metadata["managedFields"] = entries.encode(managed)
    return {**obj, "metadata": metadata} if metadata or "metadata" in obj else obj


def _metadata_map(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The object's `metadata`; TypedError, in upstream's words, when it is there but not a map."""
    metadata = obj.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise TypedError([f".metadata: expected map, got &{{{gotext.format_v(metadata)}}}"])
    return metadata


def _check_time(operation_time: str) -> None:
    if not isinstance(operation_time, str) or not _readable_time(operation_time):
        raise ValueError(f"operation_time {operation_time!r} is not an RFC 3339 time with a zone")


@functools.lru_cache(maxsize=8)
def _readable_time(operation_time: str) -> bool:
    """Every write of the same second passes the same time: it is parsed once."""
    return entries.seconds(operation_time) is not None
