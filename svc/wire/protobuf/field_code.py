"""The code that writes one field of a message, by the field's kind, and its compilation per shape.

A message's writer (encoder.py) meets objects of a few shapes: their keys, in order. For each shape
it compiles straight-line code that writes exactly those keys (`compile_shape`), from one template
per field kind. The compiled code skips the per-field table look-up and kind dispatch that a loop over
the keys pays. Written by hand: no maintained library writes protobuf from JSON-shaped dicts without
building message objects first (see wire.py).

Errors are worded here too: a wrong value names its field path and what was expected
("spec.containers.ports.containerPort: expected an integer, got string").
"""

from __future__ import annotations

from svc.wire.protobuf.memo import UNSEEN, current_memos, remembered
from svc.wire.protobuf.wire import ProtobufError, Writer, close_message, json_type, varint

(
    STRING,
    MESSAGE,
    FORM,
    REPEATED_MESSAGE,
    REPEATED_FORM,
    INT32,
    INT64,
    BOOL,
    REPEATED_STRING,
    INLINE,
    OTHER,
) = range(11)
INT_RANGES = {INT32: range(-(1 << 31), 1 << 31), INT64: range(-(1 << 63), 1 << 63)}

_EXPECTED = {
    STRING: "a string",
    MESSAGE: "an object",
    FORM: "an object",
    REPEATED_MESSAGE: "an array of objects",
    REPEATED_FORM: "an array of objects",
    INT32: "an integer",
    INT64: "an integer",
    BOOL: "a boolean",
    REPEATED_STRING: "an array of strings",
}


class FieldError(ProtobufError):
    """A ProtobufError located at a field path inside the object."""

    def __init__(self, path: tuple[str, ...], problem: str) -> None:
        super().__init__(f"{'.'.join(path)}: {problem}")
        self.path, self.problem = path, problem


def at(key: str, exc: ProtobufError) -> FieldError:
    """The error, located one key further out."""
    if isinstance(exc, FieldError):
        return FieldError((key, *exc.path), exc.problem)
    return FieldError((key,), str(exc))


def mismatch(kind: int, value: object) -> str:
    """What is wrong with a value of the wrong type (or out of range) for a field of this kind."""
    if kind in INT_RANGES and type(value) is int:
        return f"value {value} is out of range"
    expected = _EXPECTED.get(kind, "another type")
    return f"expected {expected}, got {json_type(value)}"


# Each message's fields, keyed by JSON key, as (kind, prefix table, tag, sub-writer or form encoder).
FieldTable = dict[str, tuple]


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
_REMEMBER = "remember = memos is not None and memos.get({s}, UNSEEN) is not None\n"  # not given up on
_INTEGER = (
    "if type({v}) is not int:\n    raise TypeError\n"
    "if 0 <= {v} < 128:\n    buf += {p}[{v}]\n"
    "elif {v} in {r}:\n    buf += {t} + varint({v})\n"
    "else:\n    raise ValueError"
)
_FIELD_CODE = {
    STRING: "d = {v}.encode()\n" + _LENGTH_AND_DATA,
    FORM: "d = {s}({v})\n" + _LENGTH_AND_DATA,
    MESSAGE: "item = {v}\n" + _REMEMBER + "d = remembered(memos, {s}, item) if remember else None\n" + _NESTED,
    REPEATED_MESSAGE: _IS_LIST
    + _REMEMBER
    + "for item in {v}:\n"
    + "    d = remembered(memos, {s}, item) if remember else None\n    "
    + _indent(_NESTED),
    INT32: _INTEGER,
    INT64: _INTEGER,
    BOOL: "if {v} is True:\n    buf += {p}[1]\nelif {v} is False:\n    buf += {p}[0]\nelse:\n    raise TypeError",
    REPEATED_STRING: _IS_LIST + "for item in {v}:\n    d = item.encode()\n    " + _indent(_LENGTH_AND_DATA),
    REPEATED_FORM: _IS_LIST + "for item in {v}:\n    d = {s}(item)\n    " + _indent(_LENGTH_AND_DATA),
    OTHER: "{s}({v}, buf)",
}
_HANDLED = (
    "if {v} is not None:\n"
    "    try:\n"
    "        {code}\n"
    "    except ProtobufError as exc:\n"
    "        raise at({k}, exc) from None\n"
    "    except (AttributeError, TypeError, ValueError):\n"
    "        raise FieldError(({k},), mismatch({kind}, {v})) from None"
)


def compile_shape(
    shape: tuple, fields: FieldTable, inline_writers: dict[str, tuple[bytes, Writer]], ignored: frozenset, unknown: str
) -> Writer:
    """The writer of objects with exactly these keys in this order. Keys and constants reach the code
    as names bound in its namespace, never as text: a key may be anything a client sent."""
    names: dict[str, object] = {
        "varint": varint,
        "remembered": remembered,
        "current_memos": current_memos,
        "UNSEEN": UNSEEN,
        "at": at,
        "mismatch": mismatch,
        "FieldError": FieldError,
        "ProtobufError": ProtobufError,
        "close_message": close_message,
        "unknown": unknown,
    }
    lines = [f"{''.join(f'v{index}, ' for index in range(len(shape)))}= obj.values()"] if shape else []
    if any(fields.get(key, (None,))[0] in (MESSAGE, REPEATED_MESSAGE) for key in shape):
        lines.append("memos = current_memos.get()")
    inline_parts: dict[tuple[bytes, Writer], str] = {}
    for index, key in enumerate(shape):
        v, k = f"v{index}", f"k{index}"
        names[k] = key
        if key in fields:
            kind, prefixes, field_tag, sub = fields[key]
            t, p, s, r = (f"{name}{index}" for name in "tpsr")
            names.update({t: field_tag, p: prefixes, s: sub, r: INT_RANGES.get(kind)})
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
