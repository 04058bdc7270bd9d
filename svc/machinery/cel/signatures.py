"""Typed overloads of the functions the checker knows, so that a call is checked against its
declared signatures (upstream's `found no matching overload` at write time) and its result keeps
a precise type instead of `dyn`.

Each overload is (receiver pattern or None for a global call, argument patterns, result). A pattern
accepts a static type; `dyn` is accepted by every pattern, as cel-go defers such calls to runtime.
A variadic overload repeats its last pattern; a uniform one wants its list arguments to share an
element type (cel-go's type parameter in `sets.contains(list(T), list(T))`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from svc.machinery.cel import types
from svc.machinery.cel.library.formats import FORMATS
from svc.machinery.cel.types import BOOL, BYTES, DOUBLE, DURATION, DYN, INT, STRING, TIMESTAMP, UINT, Type

Pattern = Callable[[Type], bool]
Result = Callable[[Type | None, Sequence[Type]], Type]

URL: Final = Type("kubernetes.URL")
IP: Final = Type("net.IP")
CIDR: Final = Type("net.CIDR")
QUANTITY: Final = Type("kubernetes.Quantity")
SEMVER: Final = Type("kubernetes.Semver")
NAMED_FORMAT: Final = Type("kubernetes.NamedFormat")
_COMPARABLE: Final = frozenset((INT, UINT, DOUBLE, BOOL, STRING, BYTES, DURATION, TIMESTAMP))
_SUMMABLE: Final = frozenset((INT, UINT, DOUBLE, DURATION))


def _is(*allowed: Type) -> Pattern:
    return lambda t: t in allowed


def _list_of(allowed: frozenset[Type] | None = None) -> Pattern:
    return lambda t: t.kind == "list" and (allowed is None or t.params[0] in allowed or t.params[0] == DYN)


_ANY: Final[Pattern] = lambda t: True  # noqa: E731
_STR = _is(STRING)
_INT = _is(INT)
_NUMBER = _is(INT, UINT, DOUBLE)
_OPTIONAL: Final[Pattern] = lambda t: t.kind == "optional"  # noqa: E731


def _fixed(result: Type) -> Result:
    return lambda receiver, args: result


def _argument(receiver: Type | None, args: Sequence[Type]) -> Type:
    return args[0]


def _optional_argument(receiver: Type | None, args: Sequence[Type]) -> Type:
    return types.optional_of(args[0])


def _inner(receiver: Type | None, args: Sequence[Type]) -> Type:
    return receiver.params[0] if receiver is not None and receiver.kind == "optional" else DYN


def _common(receiver: Type | None, args: Sequence[Type]) -> Type:
    """`math.greatest`'s result: the arguments' one numeric type (a list's element type), else dyn."""
    found = {a.params[0] if a.kind == "list" else a for a in args}
    return found.pop() if len(found) == 1 else DYN


def _element(receiver: Type | None, args: Sequence[Type]) -> Type:
    return receiver.params[0] if receiver is not None and receiver.kind == "list" else DYN


@dataclass(frozen=True)
class Overload:
    receiver: Pattern | None
    arguments: tuple[Pattern, ...]
    result: Result
    variadic: bool = False
    uniform: bool = False

    def accepts(self, receiver: Type | None, args: Sequence[Type]) -> bool:
        if (self.receiver is None) != (receiver is None):
            return False
        if len(args) != len(self.arguments) and not (self.variadic and len(args) > len(self.arguments)):
            return False
        if receiver is not None and receiver != DYN and not self.receiver(receiver):  # type: ignore[misc]
            return False
        patterns = self.arguments
        if self.variadic:
            patterns += (self.arguments[-1],) * (len(args) - len(self.arguments))
        if not all(a == DYN or accept(a) for a, accept in zip(args, patterns, strict=True)):
            return False
        return not self.uniform or len({a.params[0] for a in args if a.kind == "list"} - {DYN}) <= 1


def _member(receiver: Pattern, *arguments: Pattern, result: Result) -> Overload:
    return Overload(receiver, arguments, result)


def _global(*arguments: Pattern, result: Result, variadic: bool = False, uniform: bool = False) -> Overload:
    return Overload(None, arguments, result, variadic, uniform)


def _numeric(result_of: Callable[[Type], Type]) -> list[Overload]:
    """One overload per numeric type (`math.abs(int) -> int`, `math.isInf(double) -> bool`...)."""
    return [_global(_is(t), result=_fixed(result_of(t))) for t in (INT, UINT, DOUBLE)]


def _bitwise(*arguments: Callable[[Type], Pattern]) -> list[Overload]:
    """`math.bit*` on int or on uint (a shift's count is an int either way)."""
    return [_global(*(make(t) for make in arguments), result=_fixed(t)) for t in (INT, UINT)]


def _string_member(*arguments: Pattern, result: Type) -> Overload:
    return _member(_STR, *arguments, result=_fixed(result))


_TIME_PARTS: Final = (
    "getFullYear",
    "getMonth",
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
)
_CLOCK_PARTS: Final = ("getHours", "getMinutes", "getSeconds", "getMilliseconds")

MEMBERS: Final[dict[str, list[Overload]]] = {
    # lists library
    "isSorted": [_member(_list_of(_COMPARABLE), result=_fixed(BOOL))],
    "sum": [_member(_list_of(_SUMMABLE), result=_element)],
    "min": [_member(_list_of(_COMPARABLE), result=_element)],
    "max": [_member(_list_of(_COMPARABLE), result=_element)],
    "indexOf": [
        _member(_list_of(), _ANY, result=_fixed(INT)),
        _string_member(_STR, result=INT),
        _string_member(_STR, _INT, result=INT),
    ],
    "lastIndexOf": [
        _member(_list_of(), _ANY, result=_fixed(INT)),
        _string_member(_STR, result=INT),
        _string_member(_STR, _INT, result=INT),
    ],
    # strings extension
    "charAt": [_string_member(_INT, result=STRING)],
    "lowerAscii": [_string_member(result=STRING)],
    "upperAscii": [_string_member(result=STRING)],
    "trim": [_string_member(result=STRING)],
    "reverse": [_string_member(result=STRING)],
    "replace": [_string_member(_STR, _STR, result=STRING), _string_member(_STR, _STR, _INT, result=STRING)],
    "split": [
        _string_member(_STR, result=types.list_of(STRING)),
        _string_member(_STR, _INT, result=types.list_of(STRING)),
    ],
    "substring": [_string_member(_INT, result=STRING), _string_member(_INT, _INT, result=STRING)],
    "join": [
        _member(_list_of(frozenset((STRING,))), result=_fixed(STRING)),
        _member(_list_of(frozenset((STRING,))), _STR, result=_fixed(STRING)),
    ],
    "format": [_string_member(_list_of(), result=STRING)],
    # timestamps and durations
    **{
        name: [_member(_is(TIMESTAMP), result=_fixed(INT)), _member(_is(TIMESTAMP), _STR, result=_fixed(INT))]
        for name in _TIME_PARTS
    },
    **{
        name: [
            _member(_is(TIMESTAMP), result=_fixed(INT)),
            _member(_is(TIMESTAMP), _STR, result=_fixed(INT)),
            _member(_is(DURATION), result=_fixed(INT)),
        ]
        for name in _CLOCK_PARTS
    },
    # urls
    **{
        name: [_member(_is(URL), result=_fixed(STRING))]
        for name in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath")
    },
    "getQuery": [_member(_is(URL), result=_fixed(types.map_of(STRING, types.list_of(STRING))))],
    # ip and cidr
    "family": [_member(_is(IP), result=_fixed(INT))],
    **{
        name: [_member(_is(IP), result=_fixed(BOOL))]
        for name in ("isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast")
    },
    "containsIP": [_member(_is(CIDR), _is(IP, STRING), result=_fixed(BOOL))],
    "containsCIDR": [_member(_is(CIDR), _is(CIDR, STRING), result=_fixed(BOOL))],
    "ip": [_member(_is(CIDR), result=_fixed(IP))],
    "masked": [_member(_is(CIDR), result=_fixed(CIDR))],
    # optionals
    "hasValue": [_member(_OPTIONAL, result=_fixed(BOOL))],
    "value": [_member(_OPTIONAL, result=_inner)],
    "orValue": [_member(_OPTIONAL, _ANY, result=_inner)],
    "or": [_member(_OPTIONAL, _OPTIONAL, result=lambda receiver, args: receiver or DYN)],
    # Kubernetes' format library
    "validate": [_member(_is(NAMED_FORMAT), _STR, result=_fixed(types.optional_of(types.list_of(STRING))))],
    "prefixLength": [_member(_is(CIDR), result=_fixed(INT))],
    # quantity and semver
    "isInteger": [_member(_is(QUANTITY), result=_fixed(BOOL))],
    "asInteger": [_member(_is(QUANTITY), result=_fixed(INT))],
    "asApproximateFloat": [_member(_is(QUANTITY), result=_fixed(DOUBLE))],
    "sign": [_member(_is(QUANTITY), result=_fixed(INT))],
    "add": [_member(_is(QUANTITY), _is(QUANTITY, INT), result=_fixed(QUANTITY))],
    "sub": [_member(_is(QUANTITY), _is(QUANTITY, INT), result=_fixed(QUANTITY))],
    "isGreaterThan": [
        _member(_is(QUANTITY), _is(QUANTITY), result=_fixed(BOOL)),
        _member(_is(SEMVER), _is(SEMVER), result=_fixed(BOOL)),
    ],
    "isLessThan": [
        _member(_is(QUANTITY), _is(QUANTITY), result=_fixed(BOOL)),
        _member(_is(SEMVER), _is(SEMVER), result=_fixed(BOOL)),
    ],
    "compareTo": [
        _member(_is(QUANTITY), _is(QUANTITY), result=_fixed(INT)),
        _member(_is(SEMVER), _is(SEMVER), result=_fixed(INT)),
    ],
    "major": [_member(_is(SEMVER), result=_fixed(INT))],
    "minor": [_member(_is(SEMVER), result=_fixed(INT))],
    "patch": [_member(_is(SEMVER), result=_fixed(INT))],
}

GLOBALS: Final[dict[str, list[Overload]]] = {
    "url": [_global(_STR, result=_fixed(URL))],
    "ip": [_global(_STR, result=_fixed(IP))],
    "cidr": [_global(_STR, result=_fixed(CIDR))],
    "quantity": [_global(_STR, result=_fixed(QUANTITY))],
    "semver": [_global(_STR, result=_fixed(SEMVER)), _global(_STR, _is(BOOL), result=_fixed(SEMVER))],
    **{name: [_global(_STR, result=_fixed(BOOL))] for name in ("isURL", "isIP", "isCIDR", "isQuantity")},
    "isSemver": [_global(_STR, result=_fixed(BOOL)), _global(_STR, _is(BOOL), result=_fixed(BOOL))],
    "ip.isCanonical": [_global(_STR, result=_fixed(BOOL))],
    "strings.quote": [_global(_STR, result=_fixed(STRING))],
    # optionals
    "optional.of": [_global(_ANY, result=_optional_argument)],
    "optional.ofNonZeroValue": [_global(_ANY, result=_optional_argument)],
    "optional.none": [_global(result=_fixed(types.optional_of(DYN)))],
    # math extension
    **{
        name: [
            _global(_NUMBER, result=_argument),
            _global(_list_of(frozenset((INT, UINT, DOUBLE))), result=_common),
            _global(_NUMBER, _NUMBER, result=_common, variadic=True),
        ]
        for name in ("math.greatest", "math.least")
    },
    **{
        name: [_global(_is(DOUBLE), result=_fixed(DOUBLE))]
        for name in ("math.ceil", "math.floor", "math.round", "math.trunc")
    },
    **{name: [_global(_is(DOUBLE), result=_fixed(BOOL))] for name in ("math.isInf", "math.isNaN", "math.isFinite")},
    "math.abs": _numeric(lambda t: t),
    "math.sign": _numeric(lambda t: t),
    **{name: _bitwise(_is, _is) for name in ("math.bitAnd", "math.bitOr", "math.bitXor")},
    "math.bitNot": _bitwise(_is),
    **{name: _bitwise(_is, lambda t: _INT) for name in ("math.bitShiftLeft", "math.bitShiftRight")},
    # sets and base64
    **{
        name: [_global(_list_of(), _list_of(), result=_fixed(BOOL), uniform=True)]
        for name in ("sets.contains", "sets.equivalent", "sets.intersects")
    },
    "base64.encode": [_global(_is(BYTES), result=_fixed(STRING))],
    "base64.decode": [_global(_STR, result=_fixed(BYTES))],
    # Kubernetes' format library
    "format.named": [_global(_STR, result=_fixed(types.optional_of(NAMED_FORMAT)))],
    **{f"format.{name}": [_global(result=_fixed(NAMED_FORMAT))] for name in FORMATS},
}
# cel-go expands these macros into internal functions, which its errors name.
DISPLAY_NAMES: Final = {"math.greatest": "math.@max", "math.least": "math.@min"}


def resolve(overloads: list[Overload], receiver: Type | None, args: Sequence[Type]) -> Type | None:
    """The result type of the first overload that accepts the call; None when none does. With a
    `dyn` receiver or argument the result is the overloads' common type, if they share one."""
    matching = [o for o in overloads if o.accepts(receiver, args)]
    if not matching:
        return None
    results = {o.result(receiver, args) for o in matching}
    return results.pop() if len(results) == 1 else DYN
