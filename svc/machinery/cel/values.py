"""CEL's runtime values on top of plain Python values.

Objects stay the dicts and lists the server already holds, so evaluating a rule converts nothing:
CEL int is `int`, double `float`, bool `bool`, string `str`, bytes `bytes`, null `None`, list
`list`, map `dict`. Only the types Python lacks get a class here: `Uint`, `Timestamp` and
`Duration` (nanosecond ints: a `datetime` holds only microseconds), `Optional`, and `CelType`
for type values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

INT_MIN: Final = -(1 << 63)
INT_MAX: Final = (1 << 63) - 1
UINT_MAX: Final = (1 << 64) - 1
NANOS: Final = 1_000_000_000
# cel-go's timestamps run from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
TIMESTAMP_MIN: Final = -62135596800 * NANOS
TIMESTAMP_MAX: Final = 253402300800 * NANOS - 1


class CelError(Exception):
    """An evaluation error, carrying cel-go's message."""


class CompileError(CelError):
    """An expression that cannot run in this environment (undeclared names, bad macros)."""


class NoSuchOverload(CelError):
    def __init__(self, function: str = "") -> None:
        super().__init__("no such overload" + (f": {function}" if function else ""))


class Uint(int):
    """A CEL uint: a distinct type so that `1u` and `1` keep their types."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class Timestamp(int):
    """A CEL timestamp: nanoseconds since the Unix epoch (UTC). An int keeps cel-go's precision
    and lets comparisons run at int speed; calendar fields come from `datetime` on demand."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"timestamp({int(self)}ns)"


class Duration(int):
    """A CEL duration: nanoseconds, within an int64 as Go's `time.Duration`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"duration({int(self)}ns)"


def timestamp_of(nanos: int) -> Timestamp:
    if not TIMESTAMP_MIN <= nanos <= TIMESTAMP_MAX:
        raise CelError("timestamp out of range")
    return Timestamp(nanos)


def duration_of(nanos: int) -> Duration:
    if not INT_MIN <= nanos <= INT_MAX:
        raise CelError("duration out of range")
    return Duration(nanos)


class BoolKey:
    """How a map stores the key `true` or `false`: Python's `True == 1` would merge CEL's distinct
    keys `true` and `1`. The two instances are singletons (copies included), so finding them
    costs an identity hash; `map_key` wraps, `map_keys`/`map_items` unwrap."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "true" if self.value else "false"

    def __reduce__(self) -> str:
        return "TRUE_KEY" if self.value else "FALSE_KEY"

    def __copy__(self) -> BoolKey:
        return self

    def __deepcopy__(self, memo: Any) -> BoolKey:
        return self


TRUE_KEY: Final = BoolKey(True)
FALSE_KEY: Final = BoolKey(False)


def map_key(key: Any) -> Any:
    """The key as a map stores it."""
    if type(key) is bool:
        return TRUE_KEY if key else FALSE_KEY
    return key


def _has_bool_keys(mapping: dict) -> bool:
    return TRUE_KEY in mapping or FALSE_KEY in mapping


def map_keys(mapping: dict) -> list[Any]:
    """The CEL keys of a map (bool keys unwrapped), in insertion order."""
    if _has_bool_keys(mapping):
        return [k.value if type(k) is BoolKey else k for k in mapping]
    return list(mapping)


def map_items(mapping: dict) -> Any:
    """The CEL entries of a map (bool keys unwrapped)."""
    if _has_bool_keys(mapping):
        return [(k.value if type(k) is BoolKey else k, v) for k, v in mapping.items()]
    return mapping.items()


@dataclass(frozen=True, slots=True)
class Optional:
    """`optional.of(x)` / `optional.none()`; `value is _ABSENT` marks none."""

    value: Any

    def has_value(self) -> bool:
        return self.value is not _ABSENT

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.has_value() else "optional.none()"


_ABSENT: Final = object()
NONE: Final = Optional(_ABSENT)


@dataclass(frozen=True, slots=True)
class CelType:
    """A type value such as `int` or `google.protobuf.Timestamp`, as `type(x)` returns."""

    name: str

    def __repr__(self) -> str:
        return self.name


BOOL, INT, UINT, DOUBLE = CelType("bool"), CelType("int"), CelType("uint"), CelType("double")
STRING, BYTES, LIST, MAP = CelType("string"), CelType("bytes"), CelType("list"), CelType("map")
NULL, TYPE, OPTIONAL = CelType("null_type"), CelType("type"), CelType("optional_type")
TIMESTAMP, DURATION = CelType("google.protobuf.Timestamp"), CelType("google.protobuf.Duration")

TYPE_IDENTIFIERS: Final = {
    t.name: t for t in (BOOL, INT, UINT, DOUBLE, STRING, BYTES, LIST, MAP, NULL, TYPE, TIMESTAMP, DURATION)
}
TYPE_IDENTIFIERS["optional_type"] = OPTIONAL

_PY_TYPES: Final[dict[type, CelType]] = {
    bool: BOOL,
    int: INT,
    Uint: UINT,
    float: DOUBLE,
    str: STRING,
    bytes: BYTES,
    list: LIST,
    tuple: LIST,
    dict: MAP,
    type(None): NULL,
    CelType: TYPE,
    Optional: OPTIONAL,
    Timestamp: TIMESTAMP,
    Duration: DURATION,
}


class SetList(list):
    """A list whose schema says `x-kubernetes-list-type: set`: as the left operand, `==` ignores
    order and `+` appends only elements not already present (upstream's unstructured set lists)."""

    __slots__ = ()


class MapList(list):
    """A list whose schema says `x-kubernetes-list-type: map`: elements are identified by the
    values of `keys` (escaped property names); `==` matches elements by key and `+` replaces
    elements with the same key in place, appending the others."""

    __slots__ = ("keys",)

    def __init__(self, items: Any, keys: tuple[str, ...]) -> None:
        super().__init__(items)
        self.keys = keys


# Every Python type a CEL list can be.
LISTS: Final = (list, tuple, SetList, MapList)
_PY_TYPES[SetList] = _PY_TYPES[MapList] = LIST


def type_of(value: Any) -> CelType:
    """The CEL type of a runtime value (library objects declare theirs as `cel_type`)."""
    found = _PY_TYPES.get(type(value))
    if found is not None:
        return found
    declared = getattr(value, "cel_type", None)
    if isinstance(declared, CelType):
        return declared
    raise CelError(f"unsupported type: {type(value).__name__}")


def register_type(py_type: type, cel_type: CelType) -> None:
    """Let a library's value class (a URL, an IP address...) answer `type(x)` and be named."""
    _PY_TYPES[py_type] = cel_type
    TYPE_IDENTIFIERS[cel_type.name] = cel_type


def check_int(value: int) -> int:
    if value < INT_MIN or value > INT_MAX:
        raise CelError("integer overflow")
    return value


def check_uint(value: int) -> Uint:
    if value < 0 or value > UINT_MAX:
        raise CelError("unsigned integer overflow")
    return Uint(value)
