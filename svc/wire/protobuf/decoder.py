"""Protobuf bytes of an upstream message -> JSON-shaped dict.

One function per message, generated as Python source on first use from the schema table and
compiled with `exec`: a loop reading `buf[pos:end]` that dispatches on the whole field key (number
and wire type, read as one varint) through a binary tree of integer comparisons, each field's read
written out inline (varints and lengths, string slices, the sub-message call). A table-driven loop
pays a dict look-up, a tuple unpack and a chain of kind tests per field; this pays a few integer
comparisons. Consecutive values of one repeated or map field (how every writer lays them out) are
read in a tight inner loop. Written by hand: no maintained library reads protobuf into JSON-shaped
dicts without building message objects first (see wire.py).

What comes out is upstream's JSON of the object. Upstream's protobuf writes every non-pointer field,
zero or not, and its JSON leaves some of those out: a field on the wire is in the dict, even with a
zero value ("", 0, false, {} for an empty message), unless the table marks it omitted when zero
(Go `omitempty` on a non-pointer scalar, `omitzero` on a Time) and it holds that zero ("", 0,
false, null). A pointer field keeps its zero (`replicas: 0`); a pointer field not on the wire is absent.
Repeated fields are lists and maps are dicts in wire order; one the table marks null when empty
(Go writes a nil slice or map without `omitempty` as null) is null when not on the wire. A field Go's
JSON always writes (a non-pointer struct, a scalar without `omitempty`) is its zero when not on the
wire (zeros.py): Go's reader leaves it zero, and values written before we stored zeros lack it. Unknown
field numbers are skipped, as protobuf requires; a known number with the wrong wire type is an
error. Repeated integers are accepted packed or unpacked.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from svc.wire.protobuf.decode_memo import memoized
from svc.wire.protobuf.forms import form_of
from svc.wire.protobuf.schema import FieldSpec, schema
from svc.wire.protobuf.wire import (
    LENGTH_DELIMITED,
    VARINT,
    ProtobufError,
    read_varint,
    signed32,
    signed64,
    skip_field,
    varint,
)
from svc.wire.protobuf.zeros import Make, written

Decoder = Callable[[bytes, int, int], dict]
# Reads a field whose value starts at pos (its message ends at end) into obj; returns the position after it.
FieldReader = Callable[[bytes, int, int, dict], int]

_decoders: dict[str, Decoder] = {}
_memoized: dict[str, Decoder] = {}  # per message, the decoder of its values as fields of others

# Leaves of the dispatch tree hold at most this many keys, tested one after the other.
_LEAF = 3

# Generated code, by field kind: `{name}` is the JSON key as a literal, `{sub}` the name of the
# sub-decoder (or reader) bound in the function's globals, `{key}` the field key.
_LENGTH = (
    "n = buf[pos]\n"
    "pos += 1\n"
    "if n >= 0x80:\n"
    "    if buf[pos] < 0x80:\n"
    "        n = n & 0x7F | buf[pos] << 7\n"
    "        pos += 1\n"
    "    else:\n"
    "        n, pos = read_varint(buf, pos - 1)\n"
    "stop = pos + n\n"
)
_VARINT = "value = buf[pos]\npos += 1\nif value >= 0x80:\n    value, pos = read_varint(buf, pos - 1)\n"
_TEMPLATES = {
    "string": _LENGTH + "obj[{name}] = buf[pos:stop].decode()\npos = stop",
    "string omitted": _LENGTH + "if n:\n    obj[{name}] = buf[pos:stop].decode()\n    pos = stop\n"
    "else:\n    obj.pop({name}, None)",
    "message": _LENGTH + "obj[{name}] = {sub}(buf, pos, stop)\npos = stop",
    "inline": _LENGTH + "obj.update({sub}(buf, pos, stop))\npos = stop",
    "int32": _VARINT + "    value = signed32(value)\nobj[{name}] = value",
    "int64": _VARINT + "    value = signed64(value)\nobj[{name}] = value",
    "bool": _VARINT + "obj[{name}] = value != 0",
    "int32 omitted": _VARINT + "    value = signed32(value)\nif value:\n    obj[{name}] = value\n"
    "else:\n    obj.pop({name}, None)",
    "int64 omitted": _VARINT + "    value = signed64(value)\nif value:\n    obj[{name}] = value\n"
    "else:\n    obj.pop({name}, None)",
    "bool omitted": _VARINT + "if value:\n    obj[{name}] = True\nelse:\n    obj.pop({name}, None)",
    "other": "pos = {sub}(buf, pos, end, obj)",
}
# Repeated fields: the items that follow one another under the same key, read in one inner loop.
_REPEATED = (
    "items = obj.get({name})\n"
    "if items is None:\n"
    "    items = obj[{name}] = []\n"
    "while True:\n"
    "    " + _LENGTH.replace("\n", "\n    ") + "{append}\n"
    "    pos = stop\n"
    "    if pos >= end or {next_is_same}:\n"
    "        break\n"
    "    pos += {key_length}"
)
_APPEND = {
    "repeated string": "items.append(buf[pos:stop].decode())",
    "repeated message": "items.append({sub}(buf, pos, stop))",
}


def decoder(message: str) -> Decoder:
    """The decoder of a message (fully-qualified upstream name): (buf, pos, end) -> dict."""
    found = _decoders.get(message)
    if found is None:
        found = _build(message)
    return found


def _payload_decoder(type_: str) -> Callable[[bytes, int, int], object]:
    """JSON value of a message-typed payload: a special form or a plain message, whose values read
    before come from the memo (decode_memo.py)."""
    form = form_of(type_)
    if form is not None:
        return form.decode
    found = _memoized.get(type_)
    if found is None:
        found = _memoized[type_] = memoized(decoder(type_))
    return found


def _build(message: str) -> Decoder:
    short_name = message.rsplit(".", 1)[1]
    fields = schema().messages[message]
    names: dict[str, object] = {
        "read_varint": read_varint,
        "signed32": signed32,
        "signed64": signed64,
        "unknown": _unknown_reader(short_name, frozenset(field.number for field in fields)),
        "ProtobufError": ProtobufError,
        "truncated": f"{short_name} is truncated",
    }
    branches: dict[int, str] = {}
    subs: dict[str, Callable[[], object]] = {}  # resolved after registering: messages may refer to themselves
    for field in fields:
        for key, (template, make_sub) in _field_plan(field).items():
            sub = f"sub{key}"
            branches[key] = template.format(name=repr(field.json_name), sub=sub)
            if make_sub is not None:
                subs[sub] = make_sub
    source = (
        "def decode(buf, pos, end):\n"
        "    obj = {}\n"
        "    while pos < end:\n"
        "        key = buf[pos]\n"
        "        pos += 1\n"
        "        if key >= 0x80:\n"
        "            if buf[pos] < 0x80:\n"
        "                key = key & 0x7F | buf[pos] << 7\n"
        "                pos += 1\n"
        "            else:\n"
        "                key, pos = read_varint(buf, pos - 1)\n"
        "        " + _dispatch(sorted(branches.items())).replace("\n", "\n        ") + "\n"
        "    if pos != end:\n"
        "        raise ProtobufError(truncated)\n"
        + "".join(
            f"    if {key!r} not in obj:\n        obj[{key!r}] = {_zero_source(index, make, names)}\n"
            for index, (key, make) in enumerate(written(message))
        )
        + "    return obj\n"
    )
    exec(compile(source, f"<protobuf decoder of {short_name}>", "exec"), names)
    found = _decoders[message] = names["decode"]  # type: ignore[assignment]
    for sub, make_sub in subs.items():
        names[sub] = make_sub()
    return found


def _zero_source(index: int, make: Make, names: dict[str, object]) -> str:
    """The expression of a field's zero in generated code: a literal, or a call of its (struct's) maker."""
    value = make()
    if not isinstance(value, dict):
        return repr(value)
    names[f"zero{index}"] = make
    return f"zero{index}()"


def _dispatch(branches: list[tuple[int, str]]) -> str:
    """Code that runs the branch of `key`, or skips an unknown field: a binary tree of comparisons."""
    if len(branches) <= _LEAF:
        lines = []
        for index, (key, code) in enumerate(branches):
            lines.append(f"{'if' if index == 0 else 'elif'} key == {key}:\n    " + code.replace("\n", "\n    "))
        lines.append(("else:\n    " if lines else "") + "pos = unknown(buf, pos, key)")
        return "\n".join(lines)
    middle = len(branches) // 2
    pivot = branches[middle][0]
    return (
        f"if key < {pivot}:\n    "
        + _dispatch(branches[:middle]).replace("\n", "\n    ")
        + "\nelse:\n    "
        + _dispatch(branches[middle:]).replace("\n", "\n    ")
    )


def _repeated(kind: str, key: int, sub: str = "{sub}") -> str:
    """Inner loop over consecutive items of a repeated field (keys of one or two bytes)."""
    return _REPEATED.format(
        name="{name}", append=_APPEND[kind].format(sub=sub), next_is_same=_next_is_not(key), key_length=_key_length(key)
    )


def _key_length(key: int) -> int:
    return 1 if key < 0x80 else 2


def _next_is_not(key: int) -> str:
    """A test that the field key at `pos` (not past the message's end) is not `key`."""
    if key < 0x80:
        return f"buf[pos] != {key}"
    return f"buf[pos] != {key & 0x7F | 0x80} or buf[pos + 1] != {key >> 7}"


def _field_plan(field: FieldSpec) -> dict[int, tuple[str, Callable[[], object] | None]]:
    """Per key (number << 3 | wire type): the branch's code template and the maker of its sub-decoder."""
    length_key = field.number << 3 | LENGTH_DELIMITED
    name = field.json_name
    if field.label == "map":
        return {length_key: (_TEMPLATES["other"], lambda: _map_reader(name, field.type, length_key))}
    if field.type in ("int32", "int64", "bool"):
        if field.label == "repeated":
            convert = {"int32": signed32, "int64": signed64, "bool": bool}[field.type]
            return {
                field.number << 3 | VARINT: (_TEMPLATES["other"], lambda: _repeated_varint_reader(name, convert)),
                length_key: (_TEMPLATES["other"], lambda: _packed_varint_reader(name, convert)),
            }
        omitted = " omitted" if field.omitted_when_zero else ""
        return {field.number << 3 | VARINT: (_TEMPLATES[field.type + omitted], None)}
    if field.type == "string":
        if field.label == "repeated":
            return {length_key: (_repeated("repeated string", length_key), None)}
        return {length_key: (_TEMPLATES["string omitted" if field.omitted_when_zero else "string"], None)}
    if field.type == "bytes":
        return {length_key: (_TEMPLATES["other"], lambda: _bytes_reader(name, omit_empty=field.omitted_when_zero))}
    if field.inline:
        return {length_key: (_TEMPLATES["inline"], lambda: decoder(field.type))}
    if field.omitted_when_zero:
        return {length_key: (_TEMPLATES["other"], lambda: _omitted_when_null(name, _payload_decoder(field.type)))}
    if field.label == "repeated":
        return {length_key: (_repeated("repeated message", length_key), lambda: _payload_decoder(field.type))}
    return {length_key: (_TEMPLATES["message"], lambda: _payload_decoder(field.type))}


def _unknown_reader(short_name: str, numbers: frozenset[int]) -> Callable[[bytes, int, int], int]:
    """Skips a field of an unknown number; a known number with another wire type is an error."""

    def unknown(buf: bytes, pos: int, key: int) -> int:
        if key >> 3 in numbers:
            raise ProtobufError(f"field {key >> 3} of {short_name} has wrong wire type {key & 7}")
        return skip_field(buf, pos, key & 7)

    return unknown


def _read_length(buf: bytes, pos: int) -> tuple[int, int]:
    """(start, stop) of a length-delimited value at pos."""
    n, pos = read_varint(buf, pos)
    return pos, pos + n


def _bytes_reader(name: str, *, omit_empty: bool) -> FieldReader:
    def read(buf: bytes, pos: int, end: int, obj: dict) -> int:
        start, stop = _read_length(buf, pos)
        if start < stop or not omit_empty:
            obj[name] = base64.b64encode(buf[start:stop]).decode()
        else:
            obj.pop(name, None)
        return stop

    return read


def _omitted_when_null(name: str, payload: Callable[[bytes, int, int], object]) -> FieldReader:
    """A message field whose zero upstream's JSON leaves out (`omitzero` on a Time, whose zero is null)."""

    def read(buf: bytes, pos: int, end: int, obj: dict) -> int:
        start, stop = _read_length(buf, pos)
        value = payload(buf, start, stop)
        if value is not None:
            obj[name] = value
        else:
            obj.pop(name, None)
        return stop

    return read


def _repeated_varint_reader(name: str, convert: Callable[[int], object]) -> FieldReader:
    def read(buf: bytes, pos: int, end: int, obj: dict) -> int:
        value, pos = read_varint(buf, pos)
        obj.setdefault(name, []).append(convert(value))
        return pos

    return read


def _packed_varint_reader(name: str, convert: Callable[[int], object]) -> FieldReader:
    def read(buf: bytes, pos: int, end: int, obj: dict) -> int:
        items = obj.setdefault(name, [])
        start, stop = _read_length(buf, pos)
        while start < stop:
            value, start = read_varint(buf, start)
            items.append(convert(value))
        return stop

    return read


def _map_reader(name: str, value_type: str, map_key: int) -> FieldReader:
    """A map is a repeated entry message {key=1, value=2}; a missing part is its type's zero value.
    The entries that follow one another are read in one call."""
    if value_type == "string":

        def convert(buf: bytes, start: int, stop: int) -> object:
            return buf[start:stop].decode()
    elif value_type == "bytes":

        def convert(buf: bytes, start: int, stop: int) -> object:
            return base64.b64encode(buf[start:stop]).decode()
    else:
        convert = _payload_decoder(value_type)
    entry_tag = varint(map_key)

    def read(buf: bytes, pos: int, end: int, obj: dict) -> int:
        mapping = obj.get(name)
        if mapping is None:
            mapping = obj[name] = {}
        while True:
            pos, stop = _read_length(buf, pos)
            key, value_start, value_stop = "", pos, pos
            while pos < stop:
                field_key, n = buf[pos], buf[pos + 1]
                if field_key & 7 != LENGTH_DELIMITED:
                    raise ProtobufError(f"map field {name} has an entry with wire type {field_key & 7}")
                if n < 0x80:
                    start, pos = pos + 2, pos + 2 + n
                else:
                    start, pos = _read_length(buf, pos + 1)
                if field_key == 0x0A:
                    key = buf[start:pos].decode()
                elif field_key == 0x12:
                    value_start, value_stop = start, pos
            if pos != stop:
                raise ProtobufError(f"map field {name} has a truncated entry")
            mapping[key] = convert(buf, value_start, value_stop)
            if not buf.startswith(entry_tag, stop, end):
                return stop
            pos = stop + len(entry_tag)

    return read
