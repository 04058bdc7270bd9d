"""JSON merge patch (RFC 7386): applying one and computing the two-way one between two documents.

Written by hand: jsonpatch covers RFC 6902 only, and the algorithm is a few lines. Inputs are copied
first, so the results never share a list or an object with them: the server retries a patch against a
newer object after a lost write, and callers may change a result without touching the patch.
"""

from __future__ import annotations

from typing import Any

import orjson

from svc.machinery.apply.typed import values_equal
from svc.machinery.patch.errors import BAD_JSON_DOC, PatchError


def json_copy(value: Any) -> Any:
    """A detached copy of a JSON value; anything JSON cannot carry (or nested too deep) is a PatchError."""
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError, orjson.JSONDecodeError):
        raise PatchError(BAD_JSON_DOC) from None


def apply_merge_patch(original: Any, patch: Any) -> Any:
    """RFC 7386: objects merge key by key, null removes a key, anything else replaces the target."""
    target = json_copy(original)
    patch = json_copy(patch)
    if not isinstance(patch, dict):
        return patch
    return _merge_into(target if isinstance(target, dict) else {}, patch)


def _merge_into(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict):
            current = target.get(key)
            target[key] = _merge_into(current if isinstance(current, dict) else {}, value)
        else:
            target[key] = value
    return target


def create_merge_patch(original: Any, modified: Any) -> dict[str, Any]:
    """The merge patch that turns `original` into `modified`; both must be objects.

    A merge patch cannot set a member to null, so members of `modified` whose value is null come out
    as removals.
    """
    original = json_copy(original)
    modified = json_copy(modified)
    if not isinstance(original, dict) or not isinstance(modified, dict):
        raise PatchError(BAD_JSON_DOC)
    return _diff(original, modified)


def _diff(original: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    for key, value in modified.items():
        if key not in original:
            patch[key] = value
            continue
        before = original[key]
        if isinstance(before, dict) and isinstance(value, dict):
            changes = _diff(before, value)
            if changes:
                patch[key] = changes
        elif not values_equal(before, value):
            patch[key] = value
    for key in original:
        if key not in modified:
            patch[key] = None
    return patch
