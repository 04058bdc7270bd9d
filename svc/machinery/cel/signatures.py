"""Typed overloads of the functions the checker knows, so that a call is checked against its
declared signatures (upstream's `found no matching overload` at write time) and its result keeps
a precise type instead of `dyn`.

Each overload is (receiver pattern or None for a global call, argument patterns, result). A pattern
accepts a static type; `dyn` is accepted by every pattern, as cel-go defers such calls to runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from svc.machinery.cel import types
from svc.machinery.cel.types import BOOL, BYTES, DOUBLE, DURATION, DYN, INT, STRING, TIMESTAMP, UINT, Type

Pattern = Callable[[Type], bool]
Result = Callable[[Type | None, Sequence[Type]], Type]

URL: Final = Type("kubernetes.URL")
IP: Final = Type("net.IP")
CIDR: Final = Type("net.CIDR")
QUANTITY: Final = Type("kubernetes.Quantity")
SEMVER: Final = Type("kubernetes.Semver")
_COMPARABLE: Final = frozenset((INT, UINT, DOUBLE, BOOL, STRING, BYTES, DURATION, TIMESTAMP))
_SUMMABLE: Final = frozenset((INT, UINT, DOUBLE, DURATION))


def _is(*allowed: Type) -> Pattern:
    return lambda t: t in allowed


def _list_of(allowed: frozenset[Type] | None = None) -> Pattern:
    return lambda t: t.kind == "list" and (allowed is None or t.params[0] in allowed or t.params[0] == DYN)


_ANY: Final[Pattern] = lambda t: True  # noqa: E731
_STR = _is(STRING)
_INT = _is(INT)


def _fixed(result: Type) -> Result:
    return lambda receiver, args: result


def _element(receiver: Type | None, args: Sequence[Type]) -> Type:
    return receiver.params[0] if receiver is not None and receiver.kind == "list" else DYN


@dataclass(frozen=True)
class Overload:
    receiver: Pattern | None
    arguments: tuple[Pattern, ...]
    result: Result

    def accepts(self, receiver: Type | None, args: Sequence[Type]) -> bool:
        if (self.receiver is None) != (receiver is None) or len(args) != len(self.arguments):
            return False
        if receiver is not None and receiver != DYN and not self.receiver(receiver):  # type: ignore[misc]
            return False
        return all(a == DYN or accept(a) for a, accept in zip(args, self.arguments, strict=True))


def _member(receiver: Pattern, *arguments: Pattern, result: Result) -> Overload:
    return Overload(receiver, arguments, result)


def _global(*arguments: Pattern, result: Result) -> Overload:
    return Overload(None, arguments, result)


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
}


def resolve(overloads: list[Overload], receiver: Type | None, args: Sequence[Type]) -> Type | None:
    """The result type of the first overload that accepts the call; None when none does. With a
    `dyn` receiver or argument the result is the overloads' common type, if they share one."""
    matching = [o for o in overloads if o.accepts(receiver, args)]
    if not matching:
        return None
    results = {o.result(receiver, args) for o in matching}
    return results.pop() if len(results) == 1 else DYN
