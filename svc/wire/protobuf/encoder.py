"""JSON-shaped dict -> protobuf bytes of an upstream message.

One writer per message, built on first use from the schema table. It meets objects of a few shapes
(their keys, in order: an object sets a few of a message's many fields), and compiles per shape
straight-line code that writes exactly those keys (`_compile_shape`). A length or small integer below
128 takes a precomputed `tag + byte` prefix. Fields are written in the object's key order; protobuf
readers accept any order. A message is written into its parent's buffer and its length inserted in
front afterwards, which costs less than a bytes object per message joined into its parent's.

Inside one list (`list_memo`), message values below the items are remembered by their JSON: the
objects of a list share many (the containers, volumes, tolerations, probes and resources of pods
made from one template), and dumping a value with orjson costs a small part of encoding it.

Keys whose value is None are left out, as are `apiVersion` and `kind` on messages that are kinds
(list items and embedded objects carry them in JSON; protobuf has no field for them). Any other key
without a field is an error, as is a value of the wrong JSON type: the ProtobufError names the
field path ("spec.containers.ports.containerPort: expected an integer, got string").
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import orjson

from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema
from svc.wire.protobuf.wire import (
    LENGTH_DELIMITED,
    VARINT,
    ProtobufError,
    json_type,
    prefix_table,
    tag,
    varint,
)

Encoder = Callable[[dict], bytes]
Writer = Callable[[dict, bytearray], None]

(
    _STRING,
    _MESSAGE,
    _FORM,
    _REPEATED_MESSAGE,
    _REPEATED_FORM,
    _INT32,
    _INT64,
    _BOOL,
    _REPEATED_STRING,
    _INLINE,
    _OTHER,
) = range(11)
_INT_RANGES = {_INT32: range(-(1 << 31), 1 << 31), _INT64: range(-(1 << 63), 1 << 63)}
_TYPE_META_KEYS = frozenset({"apiVersion", "kind"})
_EXPECTED = {
    _STRING: "a string",
    _MESSAGE: "an object",
    _FORM: "an object",
    _REPEATED_MESSAGE: "an array of objects",
    _REPEATED_FORM: "an array of objects",
    _INT32: "an integer",
    _INT64: "an integer",
    _BOOL: "a boolean",
    _REPEATED_STRING: "an array of strings",
}

_KEY_PREFIXES = prefix_table(tag(1, LENGTH_DELIMITED))
_VALUE_PREFIXES = prefix_table(tag(2, LENGTH_DELIMITED))

_encoders: dict[str, Encoder] = {}
_writers: dict[str, Writer] = {}
# Values above this size of JSON are written without being remembered: they rarely repeat.
_MEMO_LIMIT = 4096
# After this many look-ups of one message's values, a message found less than half the time is no
# longer remembered.
_MEMO_TRIAL = 64
_NEW = object()
_list_memo: ContextVar[dict | None] = ContextVar("list_memo", default=None)


class FieldError(ProtobufError):
    """A ProtobufError located at a field path inside the object."""

    def __init__(self, path: tuple[str, ...], problem: str) -> None:
        super().__init__(f"{'.'.join(path)}: {problem}")
        self.path, self.problem = path, problem


def _at(key: str, exc: ProtobufError) -> FieldError:
    if isinstance(exc, FieldError):
        return FieldError((key, *exc.path), exc.problem)
    return FieldError((key,), str(exc))


def _mismatch(kind: int, value: object) -> str:
    if kind in _INT_RANGES and type(value) is int:
        return f"value {value} is out of range"
    expected = _EXPECTED.get(kind, "another type")
    return f"expected {expected}, got {json_type(value)}"


def encoder(message: str) -> Encoder:
    """The encoder of a message (fully-qualified upstream name), which returns the message's bytes."""
    found = _encoders.get(message)
    if found is None:
        found = _build(message)
    return found


@contextmanager
def list_memo() -> Iterator[None]:
    """Within the block, equal message values (fields and items of repeated fields) are encoded once."""
    token = _list_memo.set({})
    try:
        yield
    finally:
        _list_memo.reset(token)


def _payload_encoder(type_: str) -> Encoder:
    """Payload bytes of a message-typed value: a special form or a plain message."""
    form = form_of(type_)
    return form.encode if form is not None else encoder(type_)


def close_message(buf: bytearray, start: int) -> None:
    """Insert the length of what was written from `start` in front of it (the writer's loop inlines it)."""
    n = len(buf) - start
    if n < 128:
        buf.insert(start, n)
    else:
        buf[start:start] = varint(n)


def _build(message: str) -> Encoder:
    write = writer(message)

    def encode(obj: dict) -> bytes:
        buf = bytearray()
        write(obj, buf)
        return bytes(buf)

    _encoders[message] = encode
    return encode


def writer(message: str) -> Writer:
    """The writer of a message: it appends the message's bytes (without tag or length) to a buffer."""
    found = _writers.get(message)
    if found is None:
        found = _build_writer(message)
    return found


# Each message's fields, keyed by JSON key, as (kind, prefix table, tag, sub-writer or form encoder).
_FieldTable = dict[str, tuple]


def _indent(code: str) -> str:
    return code.replace("\n", "\n    ")


# The code that writes one field, by kind. `{v}` is the field's value (not None); `{t}`, `{p}` and `{s}`
# name the field's tag, prefix table and sub-writer (or form encoder); `{r}` an integer kind's range.
# A wrong value raises AttributeError, TypeError or ValueError, which _HANDLED words.
_LENGTH_AND_DATA = "n = len(d)\nbuf += {p}[n] if n < 128 else {t} + varint(n)\nbuf += d"
# A message `item`, from the memo when `d` holds its bytes, else written in place and its length inserted.
_NESTED = (
    "if d is None:\n"
    "    buf += {t}\n"
    "    start = len(buf)\n"
    "    {s}(item, buf)\n"
    "    n = len(buf) - start\n"
    "    if n < 128:\n"
    "        buf.insert(start, n)\n"
    "    else:\n"
    "        buf[start:start] = varint(n)\n"
    "else:\n    " + _indent(_LENGTH_AND_DATA)
)
_IS_LIST = "if type({v}) is not list:\n    raise TypeError\n"
_INTEGER = (
    "if type({v}) is not int:\n    raise TypeError\n"
    "if 0 <= {v} < 128:\n    buf += {p}[{v}]\n"
    "elif {v} in {r}:\n    buf += {t} + varint({v})\n"
    "else:\n    raise ValueError"
)
_FIELD_CODE = {
    _STRING: "d = {v}.encode()\n" + _LENGTH_AND_DATA,
    _FORM: "d = {s}({v})\n" + _LENGTH_AND_DATA,
    _MESSAGE: "item = {v}\n"
    "d = _remembered(memos, {s}, item) if memos is not None and memos.get({s}, _NEW) is not None else None\n" + _NESTED,
    _REPEATED_MESSAGE: _IS_LIST
    + "remember = memos is not None and memos.get({s}, _NEW) is not None\n"
    + "for item in {v}:\n"
    + "    d = _remembered(memos, {s}, item) if remember else None\n    "
    + _indent(_NESTED),
    _INT32: _INTEGER,
    _INT64: _INTEGER,
    _BOOL: "if {v} is True:\n    buf += {p}[1]\nelif {v} is False:\n    buf += {p}[0]\nelse:\n    raise TypeError",
    _REPEATED_STRING: _IS_LIST + "for item in {v}:\n    d = item.encode()\n    " + _indent(_LENGTH_AND_DATA),
    _REPEATED_FORM: _IS_LIST + "for item in {v}:\n    d = {s}(item)\n    " + _indent(_LENGTH_AND_DATA),
    _OTHER: "{s}({v}, buf)",
}
_HANDLED = (
    "if {v} is not None:\n"
    "    try:\n"
    "        {code}\n"
    "    except ProtobufError as exc:\n"
    "        raise _at({k}, exc) from None\n"
    "    except (AttributeError, TypeError, ValueError):\n"
    "        raise FieldError(({k},), _mismatch({kind}, {v})) from None"
)
# Shapes remembered per message; past this many (only objects built to vary) they are forgotten.
_SHAPE_LIMIT = 1024


def _build_writer(message: str) -> Writer:
    """A writer that compiles code per shape of the objects it meets. The compiled code skips the
    per-field table look-up and kind dispatch that a loop over the keys paid: the bench's list of
    10,000 pods encodes in 5-10% less time. Written by hand: no maintained library writes protobuf
    from JSON-shaped dicts without building message objects first (see wire.py)."""
    fields: _FieldTable = {}
    inline_writers: dict[str, tuple[bytes, Writer]] = {}  # inline key -> (tag, writer) of its struct
    ignored = _TYPE_META_KEYS if message in schema().kind_messages else frozenset()
    unknown = f"unknown field in {message.rsplit('.', 1)[1]}"
    shapes: dict[tuple, Writer] = {}

    def write(obj: dict, buf: bytearray) -> None:
        if type(obj) is not dict:
            raise TypeError
        found = shapes.get(tuple(obj))
        if found is None:
            if len(obj) > len(fields) + len(inline_writers) + len(ignored):
                # Only keys without a field make an object this long. Null ones are written as absent
                # (no code is compiled for them); a key with a value is an error.
                obj = {key: value for key, value in obj.items() if value is not None}
                for key in obj:
                    if key not in fields and key not in inline_writers and key not in ignored:
                        raise FieldError((key,), unknown)
                write(obj, buf)
                return
            if len(shapes) >= _SHAPE_LIMIT:
                shapes.clear()
            shape = tuple(obj)
            found = shapes[shape] = _compile_shape(shape, fields, inline_writers, ignored, unknown)
        found(obj, buf)

    _writers[message] = write  # before the fields: messages may refer to themselves
    for field in schema().messages[message]:
        if field.inline:
            inline = (tag(field.number, LENGTH_DELIMITED), writer(field.type))
            inline_writers.update(dict.fromkeys(json_keys(field.type), inline))
        else:
            fields[field.json_name] = _field_spec(field)
    return write


def _compile_shape(
    shape: tuple, fields: _FieldTable, inline_writers: dict[str, tuple[bytes, Writer]], ignored: frozenset, unknown: str
) -> Writer:
    """The writer of objects with exactly these keys in this order. Keys and constants reach the code
    as names bound in its namespace, never as text: a key may be anything a client sent."""
    names: dict[str, object] = {
        "varint": varint,
        "_remembered": _remembered,
        "_list_memo": _list_memo,
        "_NEW": _NEW,
        "_at": _at,
        "_mismatch": _mismatch,
        "FieldError": FieldError,
        "ProtobufError": ProtobufError,
        "close_message": close_message,
        "unknown": unknown,
    }
    lines = [f"{''.join(f'v{index}, ' for index in range(len(shape)))}= obj.values()"] if shape else []
    if any(fields.get(key, (None,))[0] in (_MESSAGE, _REPEATED_MESSAGE) for key in shape):
        lines.append("memos = _list_memo.get()")
    inline_parts: dict[tuple[bytes, Writer], str] = {}
    for index, key in enumerate(shape):
        v, k = f"v{index}", f"k{index}"
        names[k] = key
        if key in fields:
            kind, prefixes, field_tag, sub = fields[key]
            t, p, s, r = (f"{name}{index}" for name in "tpsr")
            names.update({t: field_tag, p: prefixes, s: sub, r: _INT_RANGES.get(kind)})
            code = _FIELD_CODE[kind].format(v=v, t=t, p=p, s=s, r=r).replace("\n", "\n        ")
            lines.append(_HANDLED.format(v=v, k=k, kind=kind, code=code))
        elif key in inline_writers:
            part = inline_parts.setdefault(inline_writers[key], f"inline{len(inline_parts)}")
            lines.append(f"if {v} is not None:\n    {part}[{k}] = {v}")
        elif key not in ignored:
            lines.append(f"if {v} is not None:\n    raise FieldError(({k},), unknown)")
    for (inline_tag, inline_write), part in inline_parts.items():
        # The embedded struct's keys are this object's keys: its errors need no extra path.
        lines.insert(0, f"{part} = {{}}")
        names[f"{part}_tag"], names[f"{part}_write"] = inline_tag, inline_write
        lines.append(
            f"if {part}:\n    buf += {part}_tag\n    start = len(buf)\n"
            f"    {part}_write({part}, buf)\n    close_message(buf, start)"
        )
    source = "def write(obj, buf):\n    " + _indent("\n".join([*lines, "pass"]))
    exec(compile(source, f"<protobuf writer of {len(shape)} keys>", "exec"), names)
    return names["write"]


class _Memo:
    """One message's remembered values within a list, and how often looking one up found it."""

    __slots__ = ("entries", "found", "looked")

    def __init__(self) -> None:
        self.entries: dict[bytes, bytes] = {}
        self.looked = self.found = 0


def _remembered(memos: dict[Writer, _Memo | None], write: Writer, value: object) -> bytes | None:
    """The value's bytes, from the memo or written and kept; None for a value to write directly: one
    that is large or not JSON (the writer reports its errors), or of a message whose values have
    mostly not repeated in this list (conditions with their own times), which stops being remembered."""
    memo = memos.get(write, _NEW)
    if memo is None:
        return None
    if memo is _NEW:
        memo = memos[write] = _Memo()
    elif memo.looked >= _MEMO_TRIAL and memo.found * 2 < memo.looked:
        memos[write] = None
        return None
    try:
        key = orjson.dumps(value)  # JSON tells 1, 1.0 and true apart; NaN, never stored, dumps as null
    except TypeError:
        return None
    if len(key) > _MEMO_LIMIT:
        return None
    memo.looked += 1
    data = memo.entries.get(key)
    if data is None:
        buf = bytearray()
        write(value, buf)
        data = memo.entries[key] = bytes(buf)
    else:
        memo.found += 1
    return data


def json_keys(message: str) -> list[str]:
    """The JSON keys a message's fields occupy, inline fields flattened."""
    keys: list[str] = []
    for field in schema().messages[message]:
        keys.extend(json_keys(field.type) if field.inline else [field.json_name])
    return keys


def _field_spec(field: FieldSpec) -> tuple:
    if field.label == "map":
        field_tag = tag(field.number, LENGTH_DELIMITED)
        return (_OTHER, None, field_tag, _map_encoder(field_tag, field.type))
    if field.type in ("int32", "int64", "bool"):
        field_tag = tag(field.number, VARINT)
        kind = {"int32": _INT32, "int64": _INT64, "bool": _BOOL}[field.type]
        if field.label == "repeated":
            return (_OTHER, None, field_tag, _repeated_varint_encoder(field_tag, kind))
        return (kind, prefix_table(field_tag), field_tag, None)
    field_tag = tag(field.number, LENGTH_DELIMITED)
    if field.type == "string":
        kind = _REPEATED_STRING if field.label == "repeated" else _STRING
        return (kind, prefix_table(field_tag), field_tag, None)
    if field.type == "bytes":
        return (_OTHER, None, field_tag, _bytes_encoder(field_tag))
    repeated = field.label == "repeated"
    form = form_of(field.type)
    if form is not None:
        return (_REPEATED_FORM if repeated else _FORM, prefix_table(field_tag), field_tag, form.encode)
    return (_REPEATED_MESSAGE if repeated else _MESSAGE, prefix_table(field_tag), field_tag, writer(field.type))


def _base64(value: object) -> bytes:
    """[]byte is base64 in JSON, as Go's encoding/json writes it."""
    if not isinstance(value, str):
        raise ProtobufError(f"expected a base64 string, got {json_type(value)}")
    try:
        return binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error as exc:
        raise ProtobufError(f"illegal base64 data: {exc}") from None


def _bytes_encoder(field_tag: bytes) -> Callable[[object, bytearray], None]:
    def encode(value: object, buf: bytearray) -> None:
        data = _base64(value)
        buf += field_tag + varint(len(data))
        buf += data

    return encode


def _repeated_varint_encoder(field_tag: bytes, kind: int) -> Callable[[object, bytearray], None]:
    """Unpacked, as proto2 and upstream's generated code write repeated scalars."""

    def encode(values: object, buf: bytearray) -> None:
        if type(values) is not list:
            raise ProtobufError(f"expected an array, got {json_type(values)}")
        for value in values:
            if kind == _BOOL and type(value) is not bool:
                raise ProtobufError(f"expected an array of booleans, got an item {value!r}")
            if kind != _BOOL and (type(value) is not int or value not in _INT_RANGES[kind]):
                raise ProtobufError(f"expected an array of integers, got an item {value!r}")
            buf += field_tag + varint(value)

    return encode


def _map_encoder(field_tag: bytes, value_type: str) -> Callable[[object, bytearray], None]:
    """A map is a repeated entry message {key=1, value=2}."""
    if value_type == "string":
        encode_value: Callable[[object], bytes] = str.encode
    elif value_type == "bytes":
        encode_value = _base64
    else:
        encode_value = _payload_encoder(value_type)
    entry_prefixes = prefix_table(field_tag)

    def encode(mapping: object, buf: bytearray) -> None:
        if type(mapping) is not dict:
            raise ProtobufError(f"expected an object, got {json_type(mapping)}")
        for key, value in mapping.items():
            if value is None:
                continue
            key_data = key.encode()
            try:
                value_data = encode_value(value)
            except ProtobufError as exc:
                raise _at(key, exc) from None
            except TypeError:
                raise FieldError((key,), _mismatch(_STRING, value)) from None
            key_n, value_n = len(key_data), len(value_data)
            if key_n < 128 and value_n < 128:
                size = key_n + value_n + 4
                buf += entry_prefixes[size] if size < 128 else field_tag + varint(size)
                buf += _KEY_PREFIXES[key_n]
                buf += key_data
                buf += _VALUE_PREFIXES[value_n]
            else:
                key_head, value_head = b"\x0a" + varint(key_n), b"\x12" + varint(value_n)
                buf += field_tag + varint(len(key_head) + key_n + len(value_head) + value_n)
                buf += key_head
                buf += key_data
                buf += value_head
            buf += value_data

    return encode
