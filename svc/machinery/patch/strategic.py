"""Strategic merge patch: applying one, and computing the two- and three-way ones kubectl's apply sends.

The semantics are upstream's (k8s.io/apimachinery pkg/util/strategicpatch, with the field metadata the
server reads from the Go struct tags): lists whose field has strategy `merge` merge by the field's merge
key (lists of scalars merge as sets), other lists and `replace` fields are replaced whole, objects merge
key by key and null removes a key. A patch may carry directives: `$patch: replace|delete` in an object,
`$patch: replace|delete` as an element of a merging list, `$retainKeys`, `$setElementOrder/<field>` and
`$deleteFromPrimitiveList/<field>`. Element order follows upstream exactly (patch order first, server-only
elements kept next to their old neighbours), as do error texts, because clients see both.

A `None` schema, or a field of unknown shape, merges objects and replaces lists. Written by hand: no
maintained Python package implements strategic merge. The algorithm works in place on private copies
of the inputs, as upstream's does on freshly decoded documents.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from svc.api.schemas import Schema
from svc.machinery.apply.typed import values_equal
from svc.machinery.gotext import format_v, json_marshal, quote, type_name
from svc.machinery.patch.errors import (
    BAD_JSON_DOC,
    BAD_PRIMITIVE_LIST,
    BAD_RETAIN_KEYS,
    BAD_SET_ELEMENT_ORDER,
    NO_LIST_OF_LISTS,
    PatchError,
    bad_arg_type,
    bad_patch_type,
    no_merge_key,
)
from svc.machinery.patch.merge import json_copy

Obj = dict[str, Any]

DIRECTIVE = "$patch"
DELETE = "delete"
REPLACE = "replace"
MERGE = "merge"
RETAIN_KEYS = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER = "$setElementOrder"

_RETAIN_KEYS_STRATEGY = "retainKeys"
_STRATEGY = "x-kubernetes-patch-strategy"
_MERGE_KEY = "x-kubernetes-patch-merge-key"
_MAP_TYPE = "map[string]interface {}"
_LIST_TYPE = "[]interface {}"
_GO_KINDS = {"map": "map", "array": "slice", "string": "string", "number": "float64", "boolean": "bool"}


def apply_strategic_merge_patch(original: Obj, patch: Obj, schema: Schema | None) -> Obj:
    """The object `patch` makes of `original`, as the server computes it for a strategic merge patch."""
    original, patch = json_copy(original), json_copy(patch)
    if not isinstance(original, dict) or not isinstance(patch, dict):
        raise PatchError(BAD_JSON_DOC)
    return _merge_map(original, patch, schema, _APPLY)


def create_two_way_merge_patch(original: Obj, modified: Obj, schema: Schema | None) -> Obj:
    """The patch that turns `original` into `modified`, with `$setElementOrder` for every changed merging list."""
    original, modified = _documents(original, modified)
    return _diff_maps(original, modified, schema, _Diff(set_element_order=True))


def create_three_way_merge_patch(original: Obj, modified: Obj, current: Obj, schema: Schema | None) -> Obj:
    """kubectl apply's patch: what `modified` changes or adds against `current`, plus what it removed since `original`.

    Fields that someone else set on `current` and `original` never had are left alone. Conflicts are not
    checked, as kubectl's apply (which overwrites) does not.
    """
    original, modified, current = _documents(original, modified, current)
    additions = _diff_maps(current, modified, schema, _Diff(set_element_order=True, ignore_deletions=True))
    deletions = _diff_maps(original, json_copy(modified), schema, _Diff(set_element_order=True, ignore_changes=True))
    return _merge_map(deletions, additions, schema, _COMBINE)


def _documents(*documents: Any) -> list[Obj]:
    copies = [json_copy(document) for document in documents]
    if not all(isinstance(document, dict) for document in copies):
        raise PatchError(BAD_JSON_DOC)
    return copies


# Field metadata


class _Field(NamedTuple):
    """What the schema says about one field; for a list field, `schema` is that of its elements."""

    schema: Schema | None
    strategy_tag: str = ""
    merge_key: str = ""

    def strategy(self) -> tuple[bool, str]:
        """Whether the field retains keys, and its other strategy (`merge`, `replace` or none)."""
        parts = self.strategy_tag.split(",")
        if len(parts) == 1:
            return (True, "") if parts[0] == _RETAIN_KEYS_STRATEGY else (False, parts[0])
        if len(parts) == 2 and _RETAIN_KEYS_STRATEGY in parts:
            return True, parts[1] if parts[0] == _RETAIN_KEYS_STRATEGY else parts[0]
        raise PatchError(f"unexpected patch strategy: [{' '.join(parts)}]")


def _unknown(schema: Schema | None) -> bool:
    return schema is None or schema.type == "any"


def _go_kind(schema: Schema | None) -> str:
    """The kind of the Go type behind a schema, as upstream's messages name it."""
    if _unknown(schema):
        return "interface"
    assert schema is not None
    if schema.type == "object" or schema.name:
        return "struct"
    if schema.type == "integer":
        return schema.raw.get("format", "int64")
    return _GO_KINDS.get(schema.type, "interface")


def _object_field(schema: Schema | None, key: str) -> _Field:
    if _unknown(schema):
        return _Field(None)
    assert schema is not None
    kind = _go_kind(schema)
    if kind != "struct":
        raise PatchError(f"merging an object in json but data type is not struct, instead is: {kind}")
    field = schema.field(key)
    if field is None:
        struct = schema.name.rpartition(".")[2]
        raise PatchError(f"unable to find api field in struct {struct} for the json field {quote(key)}")
    # The patch metadata sits beside a `$ref` in the property, where the resolved Schema no longer sees it.
    declared = schema.raw["properties"][key]
    strategy, merge_key = declared.get(_STRATEGY, ""), declared.get(_MERGE_KEY, "")
    return _Field(None if _unknown(field) else field, strategy, merge_key)


def _list_field(schema: Schema | None, key: str) -> _Field:
    field = _object_field(schema, key)
    if field.schema is None:
        return field
    if field.schema.type != "array":
        raise PatchError(f"expected slice or array type, but got: {_go_kind(schema)}")
    items = field.schema.items
    return field._replace(schema=None if _unknown(items) else items)


# Values


def _kind(value: Any) -> str:
    """The type that decides how two values merge; numbers are one type, as upstream's JSON decoding makes them."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return type_name(value)
    return "float64"


def _identity(value: Any) -> Any:
    """What Go's `==` on decoded JSON compares: type and value (objects and lists by content)."""
    if isinstance(value, dict | list):
        return _kind(value), json_marshal(value)
    return type_name(value), value


def _text(value: Any) -> str:
    """The `%v` text upstream sorts scalars and merge keys by."""
    return format_v(value)


def _element_kind(*lists: list[Any]) -> str:
    found = None
    for items in lists:
        for item in items:
            kind = _kind(item)
            if found is None:
                if isinstance(item, list):
                    raise PatchError(NO_LIST_OF_LISTS)
                found = kind
            elif kind != found:
                raise PatchError(f"list element types are not identical: {format_v(list(lists))}")
    if found is None:
        raise PatchError("no elements in any of the given slices")
    return found


def _deduplicate(items: list[Any]) -> list[Any]:
    """Upstream's in-place deduplication: a repeat is overwritten by the last element, so order may change."""
    items = list(items)
    i = 0
    while i < len(items) - 1:
        j = i + 1
        while j < len(items):
            if _identity(items[i]) == _identity(items[j]):
                items[j] = items[-1]
                items.pop()
            else:
                j += 1
        i += 1
    return items


def _sort_scalars(items: list[Any]) -> list[Any]:
    return sorted(items, key=_text)


def _merge_key_value(item: Any, merge_key: str) -> Any:
    return item.get(merge_key) if isinstance(item, dict) else None


def _same_key(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _identity(left) == _identity(right)
    for item in (left, right):
        if not isinstance(item, dict):
            raise bad_arg_type(_MAP_TYPE, item)
        if merge_key not in item:
            raise no_merge_key(item, merge_key)
    return _identity(left[merge_key]) == _identity(right[merge_key])


def _find_by_key(items: list[Any], merge_key: str, value: Any) -> int:
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            raise PatchError(f"value for key {position} is not a map")
        if merge_key in item and _identity(item[merge_key]) == _identity(value):
            return position
    return -1


def _require_merge_keys(merge_key: str, *lists: list[Any]) -> None:
    for items in lists:
        for item in items:
            if not isinstance(item, dict):
                raise bad_arg_type(_MAP_TYPE, item)
            if merge_key not in item:
                raise no_merge_key(item, merge_key)


def _split_deletions(items: list[Any]) -> tuple[list[Any], list[Any]]:
    kept, deleted = [], []
    for item in items:
        if not isinstance(item, dict):
            raise bad_arg_type(_MAP_TYPE, item)
        (deleted if item.get(DIRECTIVE) == DELETE else kept).append(item)
    return kept, deleted


# Element order


def _positions(order: list[Any], merge_key: str, kind: str) -> dict[Any, int]:
    """Where each element (a merging list's element: its merge key value) first appears in `order`."""
    positions: dict[Any, int] = {}
    for position, item in enumerate(order):
        key = _merge_key_value(item, merge_key) if kind == _MAP_TYPE else item
        positions.setdefault(_identity(key), position)
    return positions


def _position(positions: dict[Any, int], item: Any, merge_key: str, kind: str) -> int:
    key = _merge_key_value(item, merge_key) if kind == _MAP_TYPE else item
    return positions.get(_identity(key), -1)


def _sort_by_order(items: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """Sorts `items` by their place in `order`; elements that delete themselves go last."""
    deleted: list[Any] = []
    if kind == _MAP_TYPE:
        _require_merge_keys(merge_key, items, order)
        items, deleted = _split_deletions(items)
    positions = _positions(order, merge_key, kind)
    ranked = [(_position(positions, item, merge_key, kind), item) for item in items]
    if all(rank >= 0 for rank, _ in ranked):
        ranked.sort(key=lambda pair: pair[0])
    else:
        _insertion_sort(ranked)
    return [item for _, item in ranked] + deleted


def _insertion_sort(ranked: list[tuple[int, Any]]) -> None:
    """Upstream's stable sort with its comparator, which calls anything absent from the order "less"."""

    def less(left: int, right: int) -> bool:
        return left < right if left >= 0 and right >= 0 else True

    for i in range(1, len(ranked)):
        j = i
        while j > 0 and less(ranked[j][0], ranked[j - 1][0]):
            ranked[j], ranked[j - 1] = ranked[j - 1], ranked[j]
            j -= 1


def _interleave(
    server_only: list[Any], patched: list[Any], server_order: list[Any], merge_key: str, kind: str
) -> list[Any]:
    """Places each server-only element before the first patched element that followed it on the server."""
    positions = _positions(server_order, merge_key, kind)
    merged: list[Any] = []
    i = j = 0
    while i < len(server_only) or j < len(patched):
        if i < len(server_only) and j < len(patched):
            left = _position(positions, server_only[i], merge_key, kind)
            right = _position(positions, patched[j], merge_key, kind)
            take_left = left >= 0 and right >= 0 and left < right
        else:
            take_left = j >= len(patched)
        if take_left:
            merged.append(server_only[i])
            i += 1
        else:
            merged.append(patched[j])
            j += 1
    return merged


def _partition(items: list[Any], present_in: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    """Splits `items` into those found in `present_in` and the others, keeping their order."""
    inside, outside = [], []
    if not merge_key:
        wanted = {_identity(item) for item in present_in}
        for item in items:
            (inside if _identity(item) in wanted else outside).append(item)
        return inside, outside
    for item in items:
        if not isinstance(item, dict):
            raise bad_arg_type(_MAP_TYPE, item)
        if merge_key not in item:
            raise no_merge_key(item, merge_key)
        (inside if _find_by_key(present_in, merge_key, item[merge_key]) >= 0 else outside).append(item)
    return inside, outside


def _ordered(
    patched: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    kind: str,
) -> list[Any]:
    patched = _sort_by_order(patched, patch_order, merge_key, kind)
    server_only = _sort_by_order(server_only, server_order, merge_key, kind)
    return _interleave(server_only, patched, server_order, merge_key, kind)


# Applying


class _Merge(NamedTuple):
    parallel_lists: bool  # act on $deleteFromPrimitiveList and $setElementOrder (else carry them along)
    drop_unmatched_nulls: bool  # a null for a missing key removes nothing and is not kept


_APPLY = _Merge(parallel_lists=True, drop_unmatched_nulls=True)
_COMBINE = _Merge(parallel_lists=False, drop_unmatched_nulls=False)


def _merge_map(original: Obj | None, patch: Obj, schema: Schema | None, options: _Merge) -> Obj:
    if DIRECTIVE in patch:
        return _map_directive(patch)
    original = {} if original is None else original
    _retain_keys(original, patch, options)
    _merge_ordered_lists(original, patch, schema, options)
    for key, value in patch.items():
        field_key, from_delete_list = key, False
        if key.startswith(DELETE_FROM_PRIMITIVE_LIST):
            if not options.parallel_lists:
                original[key] = value
                continue
            field_key, from_delete_list = _strip_prefix(key, DELETE_FROM_PRIMITIVE_LIST), True
        if value is None:
            original.pop(field_key, None)
            if options.drop_unmatched_nulls:
                continue
        if field_key not in original or _kind(original[field_key]) != _kind(value):
            if not from_delete_list:
                _take(original, field_key, value, options)
            continue
        if isinstance(value, dict):
            field = _object_field(schema, field_key)
            _, strategy = field.strategy()
            if strategy != REPLACE:
                value = _merge_map(original[field_key], value, field.schema, options)
            original[field_key] = value
        elif isinstance(value, list):
            field = _list_field(schema, field_key)
            original[field_key], _ = _merge_list_field(original[field_key], value, field, from_delete_list, options)
        else:
            _take(original, field_key, value, options)
    return original


def _map_directive(patch: Obj) -> Obj:
    directive = patch[DIRECTIVE]
    if directive == REPLACE:
        del patch[DIRECTIVE]
        return patch
    if directive == DELETE:
        return {}
    raise bad_patch_type(directive, patch)


def _take(original: Obj, key: str, value: Any, options: _Merge) -> None:
    """Sets a patch value the original lacks (or had of another type), without its directives."""
    if options.drop_unmatched_nulls:
        _discard_nulls(value)
    kept, keep = _remove_directives(value)
    if keep:
        original[key] = kept
    else:
        original.pop(key, None)


def _discard_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for key in [key for key, item in value.items() if item is None]:
            del value[key]
        for item in value.values():
            _discard_nulls(item)
    elif isinstance(value, list):
        for item in value:
            _discard_nulls(item)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """The value without objects that carry `$patch`, and whether the value itself stays."""
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return None, False
        for key in list(value):
            kept, keep = _remove_directives(value[key])
            if keep:
                value[key] = kept
            else:
                del value[key]
    elif isinstance(value, list):
        value = [kept for kept, keep in map(_remove_directives, value) if keep]
    return value, True


def _strip_prefix(key: str, prefix: str) -> str:
    head, slash, field = key.partition("/")
    if not slash or head != prefix:
        raise PatchError(BAD_PRIMITIVE_LIST if prefix == DELETE_FROM_PRIMITIVE_LIST else BAD_SET_ELEMENT_ORDER)
    return field


def _retain_keys(original: Obj, patch: Obj, options: _Merge) -> None:
    """`$retainKeys` lists the keys the object keeps: every other key of the original is cleared."""
    if RETAIN_KEYS not in patch:
        return
    retained = patch.pop(RETAIN_KEYS)
    if not options.parallel_lists:
        if RETAIN_KEYS not in original:
            original[RETAIN_KEYS] = retained
        elif not values_equal(original[RETAIN_KEYS], retained):
            raise PatchError(
                f"{format_v(original[RETAIN_KEYS])} and {format_v(retained)} are not deep equal: "
                "this may happen when calculating the 3-way diff patch"
            )
        return
    if not isinstance(retained, list):
        raise PatchError(BAD_RETAIN_KEYS)
    names = {name for name in retained if isinstance(name, str)}
    for key, value in patch.items():
        if value is None or key.startswith((DELETE_FROM_PRIMITIVE_LIST, SET_ELEMENT_ORDER)):
            continue
        if key not in names:
            raise PatchError(BAD_RETAIN_KEYS)
    for key in [key for key in original if key not in names]:
        del original[key]


def _merge_ordered_lists(original: Obj, patch: Obj, schema: Schema | None, options: _Merge) -> None:
    """Merges each list that has a `$setElementOrder` and puts its elements in that order.

    The order list wins over the patch list's order, which wins over the original's. Both the directive
    and the list it orders leave the patch here, so the main merge does not see them again.
    """
    for key in [key for key in patch if key.startswith(SET_ELEMENT_ORDER)]:
        order = patch.pop(key)
        if not options.parallel_lists:
            if key not in original:
                original[key] = order
            elif not values_equal(original[key], order):
                raise PatchError(BAD_SET_ELEMENT_ORDER)
        if not isinstance(order, list):
            raise bad_arg_type(_LIST_TYPE, order)
        name = _strip_prefix(key, SET_ELEMENT_ORDER)
        in_original, in_patch = name in original, name in patch
        original_list = _as_list(original[name]) if in_original else []
        patch_list = _as_list(patch[name]) if in_patch else []
        field = _list_field(schema, name)
        _check_order(patch_list, order, field.merge_key)
        server_order = original_list
        if in_original and in_patch:
            merged, server_order = _merge_list_field(original_list, patch_list, field, False, options)
        elif in_original:
            merged = original_list
        elif in_patch:
            merged = _remove_directives(patch_list)[0]
        else:
            continue
        inside, outside = _partition(merged, order, field.merge_key)
        kind = _element_kind(original_list, patch_list)
        original[name] = _ordered(inside, outside, order, server_order, field.merge_key, kind)
        patch.pop(name, None)


def _as_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise bad_arg_type(_LIST_TYPE, value)
    return value


def _check_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """The patch list must follow the `$setElementOrder` list (elements deleting themselves aside)."""
    if not order or not patch_list:
        return
    items = _split_deletions(patch_list)[0] if merge_key else patch_list
    i = j = 0
    while i < len(items) and j < len(order):
        if isinstance(items[i], dict) and DIRECTIVE in items[i]:
            i += 1
            continue
        if _same_key(items[i], order[j], merge_key):
            i += 1
        j += 1
    if i < len(items):
        raise PatchError(
            f"The order in patch list:\n{format_v(patch_list)}\n doesn't match {SET_ELEMENT_ORDER} list:\n"
            f"{format_v(order)}\n"
        )


def _merge_list_field(
    original: list[Any], patch: list[Any], field: _Field, from_delete_list: bool, options: _Merge
) -> tuple[list[Any], list[Any]]:
    """The merged list, and the original list as upstream sees it afterwards (see `_merge_list`)."""
    _, strategy = field.strategy()
    if strategy == MERGE or from_delete_list:
        return _merge_list(original, patch, field, from_delete_list, options)
    return patch, original


def _merge_list(
    original: list[Any], patch: list[Any], field: _Field, from_delete_list: bool, options: _Merge
) -> tuple[list[Any], list[Any]]:
    """Merges a list with strategy merge.

    Upstream deletes elements of a list of objects in place, shifting the later ones left, and appends
    new elements into the room that frees; a `$setElementOrder` applied afterwards reads the original
    list in that state, so it is returned too.
    """
    if not original and not patch:
        return original, original
    kind = _element_kind(original, patch)
    merge_key = field.merge_key
    if kind != _MAP_TYPE:
        if options.parallel_lists and from_delete_list:
            removed = {_identity(item) for item in patch}
            return [item for item in original if _identity(item) not in removed], original
        merged = _deduplicate(original + patch)
        inside, outside = _partition(merged, patch, merge_key)
        return _ordered(inside, outside, patch, original, merge_key, kind), original
    if not merge_key:
        raise PatchError(f"cannot merge lists without merge key for {_go_kind(field.schema)}")
    shifted = list(original)
    live, plain, replace = _list_directives(shifted, patch, merge_key)
    original, patch = (plain, []) if replace else (shifted[:live], plain)
    merged = _merge_elements(original, patch, field.schema, merge_key, options)
    if not replace:
        added = merged[len(original) :]
        shifted[live : live + len(added)] = added[: len(shifted) - live]
    inside, outside = _partition(merged, patch, merge_key)
    return _ordered(inside, outside, patch, original, merge_key, kind), shifted


def _list_directives(shifted: list[Any], patch: list[Any], merge_key: str) -> tuple[int, list[Any], bool]:
    """Acts on the `$patch` elements of a merging list.

    Deletes from `shifted` in place as upstream does; returns how many elements remain at its start,
    the patch's plain elements, and whether the patch replaces the list with them.
    """
    live, plain, replace = len(shifted), [], False
    for item in patch:
        if DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[DIRECTIVE]
        if directive == DELETE:
            if merge_key not in item:
                raise no_merge_key(item, merge_key)
            while (position := _find_by_key(shifted[:live], merge_key, item[merge_key])) >= 0:
                shifted[position : live - 1] = shifted[position + 1 : live]
                live -= 1
        elif directive == REPLACE:
            replace = True
        elif directive == MERGE:
            raise PatchError("merging lists cannot yet be specified in the patch")
        else:
            raise bad_patch_type(directive, item)
    return live, plain, replace


def _merge_elements(
    original: list[Any], patch: list[Any], schema: Schema | None, merge_key: str, options: _Merge
) -> list[Any]:
    merged = list(original)
    for item in patch:
        if merge_key not in item:
            raise no_merge_key(item, merge_key)
        position = _find_by_key(merged, merge_key, item[merge_key])
        if position >= 0:
            merged[position] = _merge_map(merged[position], item, schema, options)
        else:
            merged.append(item)
    return merged


# Computing patches


class _Diff(NamedTuple):
    set_element_order: bool = False
    ignore_changes: bool = False  # leave out additions and changes
    ignore_deletions: bool = False
    retain_keys: bool = False  # the object's field has strategy retainKeys: list the keys it keeps


def _diff_maps(original: Obj, modified: Obj, schema: Schema | None, options: _Diff) -> Obj:
    patch: Obj = {}
    retained = []
    for key, value in modified.items():
        if options.retain_keys and value is not None:
            retained.append(key)
        if key not in original:
            if not options.ignore_changes:
                patch[key] = value
            continue
        before = original[key]
        if key == DIRECTIVE:
            if not isinstance(before, str) or not isinstance(value, str):
                raise PatchError(f"invalid value for special key: {DIRECTIVE}")
            if before != value:
                patch[key] = value
        elif _kind(before) != _kind(value):
            if not options.ignore_changes:
                patch[key] = value
        elif isinstance(value, dict):
            _diff_map_field(key, before, value, patch, schema, options)
        elif isinstance(value, list):
            _diff_list_field(key, before, value, patch, schema, options)
        elif not options.ignore_changes and not values_equal(before, value):
            patch[key] = value
    if not options.ignore_deletions:
        for key in original:
            if key not in modified:
                patch[key] = None
    if retained and (patch or any(value is not None and key not in modified for key, value in original.items())):
        patch[RETAIN_KEYS] = _sort_scalars(retained)
    return patch


def _diff_map_field(key: str, before: Obj, after: Obj, patch: Obj, schema: Schema | None, options: _Diff) -> None:
    try:
        field = _object_field(schema, key)
    except PatchError:
        if values_equal(before, after):
            return
        raise
    retain_keys, strategy = field.strategy()
    if strategy == REPLACE:
        if not options.ignore_changes:
            patch[key] = after
        return
    changes = _diff_maps(before, after, field.schema, options._replace(retain_keys=retain_keys))
    if changes:
        patch[key] = changes


def _diff_list_field(
    key: str, before: list[Any], after: list[Any], patch: Obj, schema: Schema | None, options: _Diff
) -> None:
    try:
        field = _list_field(schema, key)
    except PatchError:
        if values_equal(before, after):
            return
        raise
    retain_keys, strategy = field.strategy()
    if strategy != MERGE:
        if not options.ignore_changes and not values_equal(before, after):
            patch[key] = after
        return
    options = options._replace(retain_keys=retain_keys)
    changes, deletions, order = _diff_lists(before, after, field.schema, field.merge_key, options)
    if changes:
        patch[key] = changes
    if deletions:
        patch[f"{DELETE_FROM_PRIMITIVE_LIST}/{key}"] = deletions
    if order:
        patch[f"{SET_ELEMENT_ORDER}/{key}"] = order


def _diff_lists(
    original: list[Any], modified: list[Any], schema: Schema | None, merge_key: str, options: _Diff
) -> tuple[list[Any], list[Any], list[Any]]:
    """The changed and added elements, the removed scalars and the `$setElementOrder` list of a merging list."""
    if not original:
        if not modified or options.ignore_changes:
            return [], [], []
        return modified, [], []
    kind = _element_kind(original, modified)
    if kind == _MAP_TYPE:
        changes, deletions = _diff_lists_of_maps(original, modified, schema, merge_key, options)
        changes = _sort_by_order(changes, modified, merge_key, kind)
        same_order = len(original) == len(modified) and all(
            _same_key(before, after, merge_key) for before, after in zip(original, modified, strict=True)
        )
        changes += deletions
        wanted = (not options.ignore_changes and (changes or not same_order)) or (
            not options.ignore_deletions and changes
        )
        order = [{merge_key: item.get(merge_key)} for item in modified] if options.set_element_order and wanted else []
        return changes, [], order
    # Upstream sorts the original list in place before comparing it with the modified one below.
    original.sort(key=_text)
    additions, deletions = _diff_lists_of_scalars(original, modified, options)
    additions = _sort_by_order(additions, modified, merge_key, kind)
    wanted = (not options.ignore_deletions and deletions) or (
        not options.ignore_changes and not values_equal(original, modified)
    )
    return additions, deletions, list(modified) if options.set_element_order and wanted else []


def _diff_lists_of_scalars(original: list[Any], modified: list[Any], options: _Diff) -> tuple[list[Any], list[Any]]:
    """Walks both lists sorted by text; `original` is sorted already."""
    after = _sort_scalars(modified)
    additions, deletions = [], []
    i = j = 0
    while i < len(original) or j < len(after):
        left = _text(original[i]) if i < len(original) else None
        right = _text(after[j]) if j < len(after) else None
        if left is not None and right is not None and left == right:
            i, j = i + 1, j + 1
        elif left is None or (right is not None and left > right):
            if not options.ignore_changes:
                additions.append(after[j])
            j += 1
        else:
            if not options.ignore_deletions:
                deletions.append(original[i])
            i += 1
    return additions, _deduplicate(deletions)


def _diff_lists_of_maps(
    original: list[Any], modified: list[Any], schema: Schema | None, merge_key: str, options: _Diff
) -> tuple[list[Any], list[Any]]:
    """Walks both lists sorted by merge key: changed elements become partial ones, removed ones delete themselves."""
    before = sorted(original, key=lambda item: _text(item.get(merge_key)))
    after = sorted(modified, key=lambda item: _text(item.get(merge_key)))
    changes, deletions = [], []
    i = j = 0
    while i < len(before) or j < len(after):
        has_left, has_right = i < len(before), j < len(after)
        left = _keyed(before[i], merge_key) if has_left else None
        right = _keyed(after[j], merge_key) if has_right else None
        if has_left and has_right and _text(left) == _text(right):
            element = _diff_maps(before[i], after[j], schema, options)
            if element:
                element[merge_key] = right
                changes.append(element)
            i, j = i + 1, j + 1
        elif not has_left or (has_right and _text(left) > _text(right)):
            if not options.ignore_changes:
                changes.append(after[j])
            j += 1
        else:
            if not options.ignore_deletions:
                deletions.append({merge_key: left, DIRECTIVE: DELETE})
            i += 1
    return changes, deletions


def _keyed(item: Obj, merge_key: str) -> Any:
    if merge_key not in item:
        raise no_merge_key(item, merge_key)
    return item[merge_key]
