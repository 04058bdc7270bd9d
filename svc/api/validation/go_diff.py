"""The diff upstream appends to some refusals ("pod updates may not change fields other than ..."):
apimachinery's `diff.Diff`, which since 1.34 (go-cmp gone from the server, the `usegocmp` fallback
dropped in 1.36) is a unified diff, three lines of context and no file header, of the two objects as
`json.MarshalIndent(obj, "", " ")` writes them. The objects are upstream's internal types, so the
text shows Go field names in struct order with every field written (`go_core_types`); we rebuild that
from the v1 object. Python's difflib runs the same matcher as the go-difflib port upstream uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from difflib import SequenceMatcher
from typing import Any, Final

from svc.api.validation.go_core_types import TYPES
from svc.machinery.gotext.quoting import json_string
from svc.machinery.quantity import parse_quantity

_CONTEXT: Final = 3
_INDENT: Final = " "
# v1 keeps these on the pod spec; the internal type keeps them in its (then always present) security context
_HOST_FIELDS: Final = ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "hostUsers")


class _Struct(list[tuple[str, Any]]):
    """A Go struct's fields in declaration order (a plain dict is a Go map, written with sorted keys)."""


def _quantity(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return parse_quantity(value).canonical()
    except ValueError:
        return value


def _loose(value: Any) -> Any:
    """A value of a type the table does not list: its v1 fields, capitalised, as given."""
    if isinstance(value, Mapping):
        return _Struct((key[:1].upper() + key[1:], _loose(item)) for key, item in value.items())
    if isinstance(value, list):
        return [_loose(item) for item in value]
    return value


def _selector(value: Any) -> Any:
    """`metav1.LabelSelector` has json tags with omitempty: written as v1 writes it."""
    if not isinstance(value, Mapping):
        return None
    fields = _Struct()
    if value.get("matchLabels"):
        fields.append(("matchLabels", dict(value["matchLabels"])))
    if value.get("matchExpressions"):
        requirements = []
        for requirement in value["matchExpressions"]:
            entry = _Struct([("key", requirement.get("key", "")), ("operator", requirement.get("operator", ""))])
            if requirement.get("values"):
                entry.append(("values", list(requirement["values"])))
            requirements.append(entry)
        fields.append(("matchExpressions", requirements))
    return fields


_ZERO: Final = {"s": "", "i": 0, "b": False, "q": "0", "io": 0}


def _value(value: Any, kind: str) -> Any:
    if kind in _ZERO:
        return _ZERO[kind] if value is None else (_quantity(value) if kind == "q" else value)
    if value is None:
        return _struct({}, kind) if kind in TYPES else None
    if kind == "sel":
        return _selector(value)
    if kind == "*q":
        return _quantity(value)
    if kind.startswith("{") and not isinstance(value, Mapping):
        return _loose(value)
    if kind == "{}":
        return dict(value)
    if kind == "{q}":
        return {name: _quantity(amount) for name, amount in value.items()}
    if kind.startswith("[]") and isinstance(value, list):
        element = kind[2:]
        return [_struct(item, element) if element else _loose(item) for item in value]
    if kind.startswith("*") and kind[1:]:
        return _struct(value, kind[1:])
    if kind in TYPES:
        return _struct(value, kind)
    return _loose(value)


def _struct(obj: Any, type_name: str) -> Any:
    if not isinstance(obj, Mapping):
        return _loose(obj)
    fields = _Struct()
    for spec in TYPES[type_name]:
        go_name, json_name, kind = spec.split(" ")
        if kind.startswith("^"):
            fields += _struct(obj, kind[1:])
        else:
            fields.append((go_name, _value(obj.get(json_name), kind)))
    return fields


def _render(value: Any, level: int) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json_string(value)
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, _Struct):
        parts = [f"{json_string(name)}: {_render(item, level + 1)}" for name, item in value]
        return _block("{", "}", parts, level)
    if isinstance(value, Mapping):
        parts = [f"{json_string(str(k))}: {_render(v, level + 1)}" for k, v in sorted(value.items())]
        return _block("{", "}", parts, level)
    return _block("[", "]", [_render(item, level + 1) for item in value], level)


def _block(opening: str, closing: str, parts: list[str], level: int) -> str:
    if not parts:
        return opening + closing
    inner = "\n" + _INDENT * (level + 1)
    return opening + inner + ("," + inner).join(parts) + "\n" + _INDENT * level + closing


def go_json(obj: Mapping[str, Any], type_name: str) -> str:
    """`json.MarshalIndent` of the internal `core.<type_name>` the v1 object `obj` converts to."""
    if type_name == "PodSpec":
        security = dict(obj.get("securityContext") or {})
        security.update({key: obj[key] for key in _HOST_FIELDS if key in obj})
        obj = {**obj, "securityContext": security}
    return _render(_struct(obj, type_name), 0)


def _lines(text: str) -> list[str]:
    """go-difflib's `SplitLines`: every line keeps (or gains) its newline."""
    return [line + "\n" for line in text.split("\n")]


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def unified_diff(old: str, new: str) -> str:
    """go-difflib's unified diff without file names: hunks only."""
    a, b = _lines(old), _lines(new)
    out: list[str] = []
    for group in SequenceMatcher(None, a, b).get_grouped_opcodes(_CONTEXT):
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            out += ["-" + line for line in a[i1:i2]]
            out += ["+" + line for line in b[j1:j2]]
    return "".join(out)


def go_diff(old: Mapping[str, Any], new: Mapping[str, Any], type_name: str) -> str:
    """Upstream's `diff.Diff(old, new)` of two v1 objects read as the internal `core.<type_name>`."""
    return unified_diff(go_json(old, type_name), go_json(new, type_name))
