"""Field validation of a decoded body against its kind's schema, with upstream's messages and order.

Upstream decodes a body into the kind's Go struct with a strict JSON decoder. That decoder walks the
document in order and keeps going after a type error, so the error reported is the first one in
document order (`json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type
[]v1.Container`: the innermost struct, the path of struct fields only, the Go type). Types with their
own decoders (IntOrString, Quantity, Time) abort the decode instead: their error wins over any found
before and is reported as they word it. Unknown fields (`unknown field "spec.foo"`) and duplicate
fields (`duplicate field "metadata.name"`) are collected along the way in the same document order,
deduplicated and capped at 100; a type error silences them all. `null` is accepted everywhere.

The walk reproduces that decoder over the schema: Go type names are derived from the definition
names (`io.k8s.api.core.v1.Container` is `v1.Container`). Written by hand: no Python package decodes
JSON the way Go's reflection-driven decoder does, nor words its errors.
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Final

from svc.api.schemas import Schema, definitions
from svc.machinery.gotext import quote
from svc.machinery.gotext.numbers import json_float
from svc.machinery.quantity import FORMAT_ERROR, QuantityError, parse_quantity

_MAX_STRICT_ERRORS: Final = 100
_STRICT_PREFIXES: Final = ("unknown field ", "duplicate field ")


def unknown_field(path: str) -> str:
    return "unknown field " + quote(path)


def duplicate_field(path: str) -> str:
    return "duplicate field " + quote(path)


def strict_error_message(problems: Sequence[str]) -> str:
    """The Strict-mode 400 text; go-yaml's duplicate keys travel as one error, first."""
    yaml_lines = [problem for problem in problems if not problem.startswith(_STRICT_PREFIXES)]
    parts = ["yaml: unmarshal errors:\n  " + "\n  ".join(yaml_lines)] if yaml_lines else []
    parts += [problem for problem in problems if problem.startswith(_STRICT_PREFIXES)]
    return "strict decoding error: " + ", ".join(parts)


def decode_failure_message(
    cause: str, *, target_kind: str, data_kind: str = "", data_version: str = "", body: bytes = b""
) -> str:
    """Upstream's 400 text for a body that did not decode: named by the kind the body claimed, if any."""
    if data_kind:
        return f"{data_kind} in version {quote(data_version)} cannot be handled as a {target_kind}: {cause}"
    return f"the object provided is unrecognized (must be of type {target_kind}): {cause} ({_summary(body)})"


def _summary(body: bytes, limit: int = 30) -> str:
    if not body:
        return "<empty>"
    text = body[:limit].decode(errors="replace") if body[:1] == b"{" else body[:limit].hex()
    return text + " ..." if len(body) > limit else text


_FIND_KIND: Final = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)
_TYPE_META: Final = {"apiversion": "apiVersion", "kind": "kind"}


def type_meta_error(obj: Any) -> str | None:
    """The error upstream meets reading `apiVersion` and `kind`, before any decoding into the kind.

    Go's plain decoder does that read, matching the two names case-insensitively; its errors come
    out as `couldn't get version/kind; json parse error: ...`.
    """
    prefix = "couldn't get version/kind; json parse error: json: cannot unmarshal "
    if obj is None:
        return None
    if not isinstance(obj, dict):
        return f"{prefix}{_json_kind(obj)} into Go value of type {_FIND_KIND}"
    for key, value in obj.items():
        name = _TYPE_META.get(key.lower())
        if name and value is not None and not isinstance(value, str):
            return f"{prefix}{_json_kind(value)} into Go struct field .{name} of type string"
    return None


@dataclass(frozen=True)
class FieldCheck:
    fatal: str | None = None
    """The first fatal decoding error in upstream's words; when set, nothing else is reported."""
    unknown: list[str] = field(default_factory=list)
    """`unknown field "path"` messages in document order."""
    problems: list[str] = field(default_factory=list)
    """What upstream's strict decoding reports: go-yaml duplicate keys first, then unknown and duplicate
    fields in document order. One Warning header item each in Warn mode; the Strict-mode 400 otherwise."""
    retyped: list[tuple[Any, Any, Any]] = field(default_factory=list, repr=False, compare=False)
    """(container, key or index, new value or DROP): what decoding into the kind's struct changes."""

    def retype(self) -> None:
        """Make the checked object what upstream's typed decoding keeps of it: an unknown field is left
        out (whatever the validation level, it is never stored), so is a struct field set to null (it
        stays unset and gets its default), and a null item of a list or map becomes its type's zero
        value (`{}`, `""`, `0`, ...). No code after decoding meets a null where it expects a value."""
        for container, key, value in self.retyped:
            if value is DROP:
                container.pop(key, None)
            else:
                container[key] = value


def check_fields(
    obj: Any, schema: Schema | None, *, duplicates: Iterable[str] = (), sort_keys: bool = False
) -> FieldCheck:
    """Check a decoded body as upstream's strict decoder checks the kind's struct.

    `duplicates` are the decoder's findings (`svc.wire.strict`): JSON duplicates are kept only where
    the typed decoder looks (not inside unknown fields or free-form values) and placed in document
    order among the unknown fields; go-yaml's line-numbered ones are kept as they are, first. Without
    a schema the body is free-form, as upstream's unstructured decoding: every duplicate counts.
    `sort_keys` walks objects in key order, as upstream meets a patched object (re-encoded from a Go
    map); the patch's own duplicates then come first, all of them (it is decoded free-form).
    """
    duplicates = list(duplicates)
    yaml_lines: list[str] = []
    json_duplicates: set[str] = set()
    for message in duplicates:
        if message.startswith(_STRICT_PREFIXES):
            json_duplicates.add(message)
        else:
            yaml_lines.append(message)
    if schema is None:
        free_form = [message for message in duplicates if message in json_duplicates]
        return FieldCheck(problems=yaml_lines + free_form[:_MAX_STRICT_ERRORS])
    walk = _Walk(json_duplicates, sort_keys)
    try:
        walk.value(obj, _node(schema, ""), "")
    except _Abort as abort:
        return FieldCheck(fatal=abort.message)
    except RecursionError:
        return FieldCheck(fatal="json: exceeded max depth")
    if walk.saved is not None:
        return FieldCheck(fatal=walk.saved)
    return FieldCheck(unknown=walk.unknown, problems=yaml_lines + walk.problems, retyped=walk.retyped)


DROP: Final = object()


class _Kind(IntEnum):
    STRUCT = 1
    MAP = 2
    ARRAY = 3
    STRING = 4
    BYTES = 5
    INT = 6
    FLOAT = 7
    BOOL = 8
    INT_OR_STRING = 9
    QUANTITY = 10
    TIME = 11
    ANY = 12


# Types whose own JSON decoders take any value (or decode it later, without strict checks).
_FREE_FORM: Final = frozenset(
    {
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
    }
)
_QUANTITY: Final = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_MICRO_TIME: Final = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"


_INT_RANGE: Final = {32: (-(1 << 31), (1 << 31) - 1), 64: (-(1 << 63), (1 << 63) - 1)}


def _go_name(definition: str) -> str:
    package, _, name = definition.rpartition(".")
    return package.rpartition(".")[2] + "." + name


class _Node:
    """A schema node as the Go decoder sees it: what it accepts and how it names its Go type."""

    def __init__(self, schema: Schema, owner: str) -> None:
        self.schema = schema
        self.owner = owner
        self.kind = _kind_of(schema)
        self.struct_name = schema.name.rpartition(".")[2]
        self.preserves_unknown = schema.preserves_unknown_fields
        self.bits = 32 if schema.raw.get("format") == "int32" else 64
        self.micro = schema.name == _MICRO_TIME
        self.low, self.high = _INT_RANGE[self.bits]
        self.accepts: type | None = _ACCEPTS.get(self.kind)
        # A value of this type needs no further look (everything else goes through `_Walk.value`).
        self.simple: type | None = self.accepts if self.kind in _SIMPLE else None

    @functools.cached_property
    def fields(self) -> dict[str, _Node]:
        return {name: _node(child, self.schema.name) for name, child in self.schema.properties.items()}

    @functools.cached_property
    def items(self) -> _Node:
        items = self.schema.items
        return _node(items, self.owner) if items is not None else _ANY

    @functools.cached_property
    def values(self) -> _Node:
        values = self.schema.values
        return _node(values, self.owner) if values is not None else _ANY

    @functools.cached_property
    def go_type(self) -> str:
        kind, name = self.kind, self.schema.name
        if kind is _Kind.ARRAY:
            return "[]" + self.items.go_type
        if kind is _Kind.MAP:
            if self.values.schema.name == _QUANTITY:
                package = _go_name(self.owner).partition(".")[0]
                if self.owner.startswith("io.k8s.api.resource."):
                    return f"map[{package}.QualifiedName]resource.Quantity"
                return "v1.ResourceList"
            return "map[string]" + self.values.go_type
        if kind is _Kind.INT:
            return f"int{self.bits}"
        if kind is _Kind.FLOAT:
            return "float32" if self.schema.raw.get("format") == "float" else "float64"
        simple = {_Kind.STRING: "string", _Kind.BYTES: "[]uint8", _Kind.BOOL: "bool"}
        if kind in simple:
            return simple[kind]
        return _go_name(name) if name else "interface {}"


def _kind_of(schema: Schema) -> _Kind:
    declared = schema.type
    if schema.name in _FREE_FORM:
        return _Kind.ANY
    if declared == "object":
        return _Kind.STRUCT
    if declared in ("map", "array", "boolean"):
        return {"map": _Kind.MAP, "array": _Kind.ARRAY, "boolean": _Kind.BOOL}[declared]
    if declared == "string":
        format_ = schema.raw.get("format")
        return _Kind.BYTES if format_ == "byte" else _Kind.TIME if format_ == "date-time" else _Kind.STRING
    if declared == "integer":
        return _Kind.INT
    if declared == "number":
        return _Kind.FLOAT
    if declared == "scalar":
        if schema.types == {"integer", "string"}:
            return _Kind.INT_OR_STRING
        if schema.types == {"number", "string"}:
            return _Kind.QUANTITY
        return _Kind.ANY
    if schema.name and "object" in schema.types:
        return _Kind.STRUCT  # a struct without fields: every key is unknown
    return _Kind.ANY


_ACCEPTS: Final = {
    _Kind.STRUCT: dict,
    _Kind.MAP: dict,
    _Kind.ARRAY: list,
    _Kind.STRING: str,
    _Kind.BYTES: str,
    _Kind.INT: int,
    _Kind.FLOAT: float,
    _Kind.BOOL: bool,
    _Kind.INT_OR_STRING: str,
    _Kind.QUANTITY: str,
    _Kind.TIME: str,
}
_ZERO: Final[dict[_Kind, Callable[[], Any]]] = {
    _Kind.STRUCT: dict,
    _Kind.STRING: str,
    _Kind.INT: int,
    _Kind.FLOAT: int,
    _Kind.BOOL: bool,
    _Kind.INT_OR_STRING: int,
    _Kind.QUANTITY: lambda: "0",
}
"""Zero values as Go's JSON encoding writes them; a nil slice, map, pointer or time stays null."""
_SIMPLE: Final = frozenset({_Kind.STRING, _Kind.FLOAT, _Kind.BOOL, _Kind.INT_OR_STRING})
_NAMED: dict[str, _Node] = {}
_ANY: Final = _Node(Schema({}), "")


def _node(schema: Schema, owner: str) -> _Node:
    """Nodes of built-in definitions are shared, so each is prepared once per process."""
    name = schema.name
    if name and definitions().get(name) is schema.raw:
        node = _NAMED.get(name)
        if node is None:
            node = _NAMED[name] = _Node(schema, owner)
        return node
    return _Node(schema, owner)


class _Abort(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


_FIELD, _KEY, _INDEX = 0, 1, 2


def _json_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "bool" if isinstance(value, bool) else "number"


def _number_text(value: Any) -> str:
    """A YAML body's integral float past int64 (kept a float) reads as Go's JSON wrote it, in digits."""
    if isinstance(value, float):
        return "number " + (json_float(value) if value.is_integer() and abs(value) >= 1 << 63 else repr(value))
    return f"number {value}"


class _Walk:
    """One pass over the value in document order, as the Go decoder makes it."""

    def __init__(self, duplicates: set[str], sort_keys: bool) -> None:
        self.duplicates = duplicates
        self.sort_keys = sort_keys
        self.path: list[tuple[int, Any]] = []
        self.saved: str | None = None
        self.unknown: list[str] = []
        self.retyped: list[tuple[Any, Any, Any]] = []
        """Unknown fields (all of them: their messages stop at a cap) and null ones."""
        self.problems: list[str] = []
        self.reported: set[str] = set()

    # -- where we are -----------------------------------------------------------------------
    def strict_path(self) -> str:
        parts: list[str] = []
        for kind, text in self.path:
            parts.append(f"[{text}]" if kind == _INDEX else "." + text if parts else text)
        return "".join(parts)

    def type_error(self, found: str, go_type: str, owner: str) -> str:
        fields = ".".join(text for kind, text in self.path if kind == _FIELD)
        if owner or fields:
            return f"json: cannot unmarshal {found} into Go struct field {owner}.{fields} of type {go_type}"
        return f"json: cannot unmarshal {found} into Go value of type {go_type}"

    def save(self, message: str) -> None:
        if self.saved is None:
            self.saved = message

    def strict(self, message: str) -> bool:
        """Record a strict-decoding finding; False if it is a repeat or past upstream's cap."""
        if message in self.reported or len(self.reported) >= _MAX_STRICT_ERRORS:
            return False
        self.reported.add(message)
        self.problems.append(message)
        return True

    def entries(self, obj: dict[str, Any]) -> Iterable[tuple[str, Any]]:
        return sorted(obj.items()) if self.sort_keys else obj.items()

    # -- values -----------------------------------------------------------------------------
    def value(self, value: Any, node: _Node, owner: str) -> None:
        """Check one value; the path already ends at it."""
        if value is None:
            return
        kind = node.kind
        if type(value) is node.accepts:
            if kind is _Kind.STRUCT:
                self.struct(value, node)
            elif kind is _Kind.MAP:
                self.map(value, node, owner)
            elif kind is _Kind.ARRAY:
                self.array(value, node.items, owner)
            elif kind is _Kind.INT:
                if not node.low <= value <= node.high:
                    self.save(self.type_error(_number_text(value), node.go_type, owner))
            elif kind is _Kind.QUANTITY:
                self.quantity_literal(value)
            elif kind is _Kind.TIME:
                self.time(value, node)
            elif kind is _Kind.BYTES:
                self.base64(value)
        elif kind is _Kind.ANY or (kind is _Kind.FLOAT and type(value) is int):
            return
        elif kind is _Kind.INT_OR_STRING:
            self.int_or_string(value, owner)
        elif kind is _Kind.QUANTITY:
            self.quantity_literal(value)
        elif kind is _Kind.TIME:
            raise _Abort(self.type_error(_json_kind(value), "string", owner))
        elif kind is _Kind.BYTES and type(value) is list:
            self.byte_list(value, owner)
        elif kind is _Kind.INT and type(value) in (int, float):
            self.save(self.type_error(_number_text(value), node.go_type, owner))
        else:
            self.save(self.type_error(_json_kind(value), node.go_type, owner))

    def struct(self, obj: dict[str, Any], node: _Node) -> None:
        fields, path, name, duplicates = node.fields, self.path, node.struct_name, self.duplicates
        for key, child in self.entries(obj):
            field_node = fields.get(key)
            if field_node is None:
                if not node.preserves_unknown:
                    path.append((_KEY, key))
                    self.report_unknown(unknown_field(self.strict_path()))
                    path.pop()
                    self.retyped.append((obj, key, DROP))
                continue
            if child is None:
                self.retyped.append((obj, key, DROP))
            if duplicates or not (child is None or type(child) is field_node.simple):
                path.append((_FIELD, key))
                if duplicates:
                    self.check_duplicate()
                self.value(child, field_node, name)
                path.pop()
                if type(child) is list and field_node.kind is _Kind.BYTES:
                    self.bytes_from_list(obj, key, child)

    def map(self, obj: dict[str, Any], node: _Node, owner: str) -> None:
        values, path, duplicates = node.values, self.path, self.duplicates
        for key, child in self.entries(obj):
            if child is None:
                self.zero(obj, key, values)
            if duplicates or not (child is None or type(child) is values.simple):
                path.append((_KEY, key))
                if duplicates:
                    self.check_duplicate()
                self.value(child, values, owner)
                path.pop()
                if type(child) is list and values.kind is _Kind.BYTES:
                    self.bytes_from_list(obj, key, child)

    def array(self, items: list[Any], node: _Node, owner: str) -> None:
        path, simple = self.path, node.simple
        for index, item in enumerate(items):
            if item is None:
                self.zero(items, index, node)
            elif type(item) is not simple:
                path.append((_INDEX, index))
                self.value(item, node, owner)
                path.pop()

    def zero(self, container: Any, key: Any, node: _Node) -> None:
        """A null list item or map value: Go stores its type's zero value (nil ones stay null)."""
        make = _ZERO.get(node.kind)
        if make is not None:
            self.retyped.append((container, key, make()))

    def report_unknown(self, message: str) -> None:
        if self.strict(message):
            self.unknown.append(message)

    def check_duplicate(self) -> None:
        message = duplicate_field(self.strict_path())
        if message in self.duplicates:
            self.strict(message)

    def time(self, value: str, node: _Node) -> None:
        problem = time_parse_error(value, micro=node.micro)
        if problem is not None:
            raise _Abort(problem)

    def base64(self, value: str) -> None:
        offset = _base64_error_offset(value.encode())
        if offset is not None:
            self.save(f"illegal base64 data at input byte {offset}")

    def bytes_from_list(self, container: Any, key: Any, items: list[Any]) -> None:
        """Go decodes a JSON array of numbers into []byte as well; stored, it is base64 like any other."""
        data = bytes(item or 0 for item in items if item is None or (type(item) is int and 0 <= item <= 255))
        self.retyped.append((container, key, base64.b64encode(data).decode()))

    def byte_list(self, items: list[Any], owner: str) -> None:
        for item in items:
            if item is not None and not (type(item) is int and 0 <= item <= 255):
                found = _number_text(item) if type(item) in (int, float) else _json_kind(item)
                self.save(self.type_error(found, "uint8", owner))

    def int_or_string(self, value: Any, owner: str) -> None:
        if type(value) is int and -(1 << 31) <= value < (1 << 31):
            return
        found = _number_text(value) if type(value) in (int, float) else _json_kind(value)
        raise _Abort(self.type_error(found, "int32", owner))

    def quantity_literal(self, value: Any) -> None:
        """Quantity's decoder parses the literal itself: a string's content, a number's digits."""
        if type(value) is str:
            text = value.strip()
            if _PLAIN_QUANTITY.fullmatch(text):
                return
        elif type(value) in (int, float):
            text = _number_text(value).removeprefix("number ")
        else:
            raise _Abort(FORMAT_ERROR)
        try:
            parse_quantity(text)
        except QuantityError as error:
            raise _Abort(str(error)) from None


# Quantities that need no full parse to be known good: the shape nearly every request uses.
_PLAIN_QUANTITY: Final = re.compile(r"[0-9]{1,15}(\.[0-9]{1,3})?([numkMGTPE]|[KMGTPE]i)?")


def _base64_error_offset(data: bytes) -> int | None:
    """Where Go's padded standard base64 decoder gives up (it skips CR and LF), or None if it does not."""
    position, end = 0, len(data)
    while position < end:
        filled = 0
        while filled < 4:
            if position == end:
                return None if filled == 0 else position - filled
            byte = data[position]
            position += 1
            if byte in _BASE64_ALPHABET:
                filled += 1
            elif byte in _NEWLINES:
                continue
            elif byte != _PAD or filled < 2:
                return position - 1
            else:
                return _after_padding(data, position, filled)
    return None


_BASE64_ALPHABET: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_NEWLINES: Final = frozenset(b"\r\n")
_PAD: Final = ord("=")


def _after_padding(data: bytes, position: int, filled: int) -> int | None:
    end = len(data)
    if filled == 2:
        while position < end and data[position] in _NEWLINES:
            position += 1
        if position == end:
            return end
        if data[position] != _PAD:
            return position - 1
        position += 1
    while position < end and data[position] in _NEWLINES:
        position += 1
    return position if position < end else None


# -- Go's time.Parse for the layouts of metav1.Time and metav1.MicroTime ------------------------
_RFC3339: Final = "2006-01-02T15:04:05Z07:00"
_RFC3339_MICRO: Final = "2006-01-02T15:04:05.000000Z07:00"


def _time_quote(text: str) -> str:
    """The time package's own quoting: ASCII kept, everything else as \\x bytes."""
    out = ['"']
    for char in text:
        if char >= "\x80" or char < " ":
            out.extend(f"\\x{byte:02x}" for byte in char.encode(errors="surrogatepass"))
        else:
            out.append("\\" + char if char in '"\\' else char)
    out.append('"')
    return "".join(out)


def _digit(text: str, index: int) -> bool:
    return index < len(text) and "0" <= text[index] <= "9"


def _getnum(text: str, fixed: bool) -> tuple[int, str] | None:
    if not _digit(text, 0):
        return None
    if not _digit(text, 1):
        return None if fixed else (int(text[0]), text[1:])
    return int(text[:2]), text[2:]


def _atoi(text: str) -> int | None:
    digits = text[1:] if text[:1] in "+-" else text
    if not digits or not all("0" <= char <= "9" for char in digits):
        return None
    return -int(digits) if text[:1] == "-" else int(digits)


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


class _TimeError(Exception):
    def __init__(self, element: str, rest: str, message: str = "") -> None:
        super().__init__(message)
        self.element, self.rest, self.message = element, rest, message


def time_parse_error(value: str, *, micro: bool = False) -> str | None:
    """Go's `time.Parse(RFC3339[Micro], value)` error text, or None when Go accepts the value."""
    layout = _RFC3339_MICRO if micro else _RFC3339
    try:
        _parse_time(value, micro)
    except _TimeError as error:
        if error.message:
            return f"parsing time {_time_quote(value)}{error.message}"
        return (
            f"parsing time {_time_quote(value)} as {_time_quote(layout)}: "
            f"cannot parse {_time_quote(error.rest)} as {_time_quote(error.element)}"
        )
    return None


def _literal(rest: str, char: str) -> str:
    if not rest.startswith(char):
        raise _TimeError(char, rest)
    return rest[1:]


def _parse_time(value: str, micro: bool) -> None:
    rest = value
    if len(rest) < 4 or not _digit(rest, 0) or (year := _atoi(rest[:4])) is None:
        raise _TimeError("2006", rest)
    rest = _literal(rest[4:], "-")
    month, rest = _number(rest, "01", fixed=True)
    if not 1 <= month <= 12:
        raise _TimeError("01", rest, ": month out of range")
    day, rest = _number(_literal(rest, "-"), "02", fixed=True)
    hour, rest = _number(_literal(rest, "T"), "15", fixed=False)
    if hour >= 24:
        raise _TimeError("15", rest, ": hour out of range")
    minute, rest = _number(_literal(rest, ":"), "04", fixed=True)
    if minute >= 60:
        raise _TimeError("04", rest, ": minute out of range")
    second, rest = _number(_literal(rest, ":"), "05", fixed=True)
    if second >= 60:
        raise _TimeError("05", rest, ": second out of range")
    rest = _fraction(rest, micro)
    rest = _zone(rest)
    if rest:
        raise _TimeError("", rest, ": extra text: " + _time_quote(rest))
    if not 1 <= day <= _days_in(month, year):
        raise _TimeError("", rest, ": day out of range")


def _number(rest: str, element: str, *, fixed: bool) -> tuple[int, str]:
    parsed = _getnum(rest, fixed)
    if parsed is None:
        raise _TimeError(element, rest)
    return parsed


def _fraction(rest: str, micro: bool) -> str:
    if micro:
        if len(rest) < 7 or rest[0] not in ".," or (nanos := _atoi(rest[1:7])) is None:
            raise _TimeError(".000000", rest)
        if nanos < 0:
            raise _TimeError(".000000", rest[7:], ": fractional second out of range")
        return rest[7:]
    if len(rest) >= 2 and rest[0] in ".," and _digit(rest, 1):
        end = 2
        while _digit(rest, end):
            end += 1
        return rest[end:]
    return rest


def _zone(rest: str) -> str:
    if rest.startswith("Z"):
        return rest[1:]
    if len(rest) < 6 or rest[3] != ":":
        raise _TimeError("Z07:00", rest)
    hours = _getnum(rest[1:3], True)
    minutes = _getnum(rest[4:6], True) if hours else None
    if minutes and minutes[0] > 60:
        raise _TimeError("Z07:00", rest[6:], ": time zone offset minute out of range")
    if hours and hours[0] > 24:
        raise _TimeError("Z07:00", rest[6:], ": time zone offset hour out of range")
    if hours is None or minutes is None or rest[0] not in "+-":
        raise _TimeError("Z07:00", rest)
    return rest[6:]
