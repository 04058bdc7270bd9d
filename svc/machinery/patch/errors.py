"""The error every patch function raises, with upstream's texts and the HTTP status upstream answers with.

Clients (kubectl among them) print these messages as they are, so the fixed texts and the formatted ones
(`map: map[...] does not contain declared merge key: name`) follow k8s.io/apimachinery's mergepatch
package, values rendered the way Go's `fmt` renders them.
"""

from __future__ import annotations

from typing import Any

from svc.machinery.gotext import format_v, type_name

BAD_REQUEST = 400
UNPROCESSABLE = 422
INTERNAL = 500

BAD_JSON_DOC = "invalid JSON document"
NO_LIST_OF_LISTS = "lists of lists are not supported"
BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list"

# The server answers 400 or 422 for these; any other patch error reaches the client as a 500.
_CODES = {
    BAD_JSON_DOC: BAD_REQUEST,
    BAD_PRIMITIVE_LIST: BAD_REQUEST,
    BAD_RETAIN_KEYS: BAD_REQUEST,
    BAD_SET_ELEMENT_ORDER: BAD_REQUEST,
    NO_LIST_OF_LISTS: UNPROCESSABLE,
}


class PatchError(ValueError):
    """A patch that cannot be applied or computed; `code` is the HTTP status upstream's server answers."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = _CODES.get(message, INTERNAL)


def no_merge_key(item: dict[str, Any], merge_key: str) -> PatchError:
    return PatchError(f"map: {format_v(item)} does not contain declared merge key: {merge_key}")


def bad_arg_type(expected: str, actual: Any) -> PatchError:
    """`expected` is a Go type name such as `map[string]interface {}`."""
    received = "%!s(<nil>)" if actual is None else type_name(actual)
    return PatchError(f"expected a {expected}, but received a {received}")


def bad_patch_type(directive: Any, where: dict[str, Any]) -> PatchError:
    return PatchError(f"unknown patch type: {_format_s(directive)} in map: {format_v(where)}")


def _format_s(value: Any) -> str:
    """Go's `%s` of a decoded JSON value: strings as they are, other scalars flagged as `%!s(T=V)`."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    if isinstance(value, list):
        return "[" + " ".join(_format_s(item) for item in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{_format_s(item)}" for key, item in sorted(value.items())) + "]"
    return f"%!s({type_name(value)}={format_v(value)})"
