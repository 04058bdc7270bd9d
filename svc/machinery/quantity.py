"""Resource quantities (`100m`, `1.5Gi`, `1e3`): upstream's parsing, rounding and canonical form.

A quantity is an exact decimal plus the format its suffix chose (decimal SI, binary SI or a decimal
exponent), and it is written back in that format in canonical form: no fractional digits, the largest
suffix that keeps the value exact. Parsing rounds a non-zero value up in magnitude to a multiple of
10^-9, caps binary quantities at 2^63-1, and turns a binary quantity below 1 in magnitude into decimal SI.

Upstream keeps the client's own text when it is already in a form its fast parser recognises as
canonical, and serves that text back unchanged even where it is not strictly canonical (`+1k`, `01`,
`1.500k`); `canonical()` reproduces that too, since servers echo it. One known upstream defect is not
copied: a decimal SI value beyond the `E` suffix (10^21 and more) is written in exponent form (`1e21`)
instead of losing its magnitude (upstream 1.36 prints `1`).

Written by hand: no maintained Python package implements this format.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from enum import StrEnum
from typing import Final


class QuantityError(ValueError):
    """Text that is not a quantity; the message is upstream's."""


class QuantityFormat(StrEnum):
    DECIMAL_EXPONENT = "DecimalExponent"
    BINARY_SI = "BinarySI"
    DECIMAL_SI = "DecimalSI"


FORMAT_ERROR: Final = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NUMERIC_ERROR: Final = "unable to parse numeric part of quantity"
SUFFIX_ERROR: Final = "unable to parse quantity's suffix"

_DECIMAL_SUFFIXES: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_NAMES: Final = {exponent: name for name, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_NAMES: Final = {exponent // 10: name for name, exponent in _BINARY_SUFFIXES.items()}
_SUFFIX_LETTERS: Final = frozenset("eEinumkKMGTP")
_DIGITS: Final = frozenset("0123456789")
_INT64_PATTERN: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MAX: Final = (1 << 63) - 1
_NANO: Final = -9
# Digits the fast parser accepts without overflow checks (upstream's maxInt64Factors).
_FAST_DIGITS: Final = 18


@functools.total_ordering
class Quantity:
    """An exact value and its format; equality and order compare values only, as upstream's Cmp."""

    __slots__ = ("_text", "format", "value")

    def __init__(self, value: Decimal, format: QuantityFormat = QuantityFormat.DECIMAL_SI, *, text: str = "") -> None:
        self.value = value
        self.format = format
        self._text = text

    def canonical(self) -> str:
        """The text upstream serialises this quantity as."""
        if self._text:
            return self._text
        if not self.value:
            return "0"
        if self.format is QuantityFormat.BINARY_SI and -1024 < self.value < 1024:
            return _decimal_text(self.value, QuantityFormat.DECIMAL_SI)
        if self.format is QuantityFormat.BINARY_SI and self.value == self.value.to_integral_value():
            return _binary_text(int(self.value))
        if self.format is QuantityFormat.BINARY_SI:
            return _decimal_text(self.value, QuantityFormat.DECIMAL_SI)
        return _decimal_text(self.value, self.format)

    def __str__(self) -> str:
        return self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({self.canonical()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)


def _significand(value: Decimal) -> tuple[int, int]:
    """|value| as (m, e) with value = m * 10^e and m not divisible by ten."""
    _, digits, exponent = value.as_tuple()
    text = "".join(map(str, digits)).rstrip("0")
    return int(text), int(exponent) + len(digits) - len(text)


def _decimal_text(value: Decimal, format: QuantityFormat) -> str:
    mantissa, exponent = _significand(value)
    shift = exponent % 3
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    sign = "-" if value < 0 else ""
    if format is QuantityFormat.DECIMAL_SI and exponent in _DECIMAL_NAMES:
        return f"{sign}{mantissa}{_DECIMAL_NAMES[exponent]}"
    return f"{sign}{mantissa}e{exponent}" if exponent else f"{sign}{mantissa}"


def _binary_text(number: int) -> str:
    magnitude, power = abs(number), 0
    while power < max(_BINARY_NAMES) and magnitude % 1024 == 0:
        magnitude, power = magnitude // 1024, power + 1
    return f"{'-' if number < 0 else ''}{magnitude}{_BINARY_NAMES.get(power, '')}"


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """Sign, number text, integer digits (leading zeros dropped), fraction digits and suffix."""
    size, position = len(text), 0
    positive = True
    if text[:1] in ("+", "-"):
        positive = text[0] == "+"
        position = 1
    while position < size and text[position] == "0":
        position += 1
    if position >= size:
        return positive, "0", "0", "", ""
    start = position
    while position < size and text[position] in _DIGITS:
        position += 1
    whole = text[start:position] or "0"
    if position >= size:
        return positive, text, whole, "", ""
    fraction = ""
    if text[position] == ".":
        position += 1
        fraction_start = position
        while position < size and text[position] in _DIGITS:
            position += 1
        fraction = text[fraction_start:position]
    number = text[:position]
    suffix_start = position
    while position < size and text[position] in _SUFFIX_LETTERS:
        position += 1
    if position < size and text[position] in ("+", "-"):
        position += 1
    while position < size and text[position] in _DIGITS:
        position += 1
    if position < size:
        raise QuantityError(FORMAT_ERROR)
    return positive, number, whole, fraction, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, QuantityFormat]:
    """Base, exponent and format a suffix stands for."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], QuantityFormat.DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], QuantityFormat.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE" and _INT64_PATTERN.fullmatch(suffix[1:]):
        exponent = int(suffix[1:])
        if -(1 << 63) <= exponent <= _INT64_MAX:
            # Upstream keeps the exponent in 32 bits, wrapping larger ones.
            return 10, (exponent + (1 << 31)) % (1 << 32) - (1 << 31), QuantityFormat.DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_ERROR)


def _fast_path(whole: str, fraction: str, base: int, exponent: int) -> bool:
    """Whether upstream's int64 parser takes the number (rather than its arbitrary-precision one)."""
    if base == 2:
        if fraction or 15 - len(whole) - exponent * 3 // 10 - 1 < 0:
            return False
        return int(whole) << exponent <= _INT64_MAX
    return len(whole + fraction) <= _FAST_DIGITS and exponent - len(fraction) >= _NANO


def _kept_text(text: str, whole: str, fraction: str, base: int, exponent: int) -> str:
    """The client's text when upstream keeps it as the canonical form, else ""."""
    if not _fast_path(whole, fraction, base, exponent):
        return ""
    digits = whole + fraction
    if base == 2:
        return text if int(digits) & 7 else ""
    keep = (exponent - len(fraction)) % 3 == 0 and not digits.endswith("000") and digits[0] != "0"
    return text if keep else ""


def _round_up_to_nano(magnitude: int, exponent: int) -> tuple[int, int]:
    """(m, e) rounded up to a multiple of 10^-9; m is non-negative."""
    if exponent >= _NANO or magnitude == 0:
        return magnitude, exponent
    drop = _NANO - exponent
    if drop > len(str(magnitude)):
        return 1, _NANO
    kept, rest = divmod(magnitude, 10**drop)
    return kept + (1 if rest else 0), _NANO


def parse_quantity(text: str) -> Quantity:
    """The quantity `text` denotes; raises QuantityError with upstream's message."""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return Quantity(Decimal(0), QuantityFormat.DECIMAL_SI, text="0")
    positive, number, whole, fraction, suffix = _scan(text)
    base, exponent, format = _interpret(suffix)
    if not any(char in _DIGITS for char in number):
        # A number without digits reads as zero on the int64 path and is refused on the other.
        if not _fast_path(whole, fraction, base, exponent):
            raise QuantityError(NUMERIC_ERROR)
        return Quantity(Decimal(0), format)
    magnitude, power = int(whole + fraction), -len(fraction)
    if base == 2:
        magnitude <<= exponent
    else:
        power += exponent
    magnitude, power = _round_up_to_nano(magnitude, power)
    if format is QuantityFormat.BINARY_SI and magnitude > _INT64_MAX * 10**-power:
        magnitude, power = _INT64_MAX, 0
    negative = not positive and magnitude != 0
    value = Decimal((int(negative), tuple(map(int, str(magnitude))), power))
    if format is QuantityFormat.BINARY_SI and 0 < abs(value) < 1:
        format = QuantityFormat.DECIMAL_SI
    return Quantity(value, format, text=_kept_text(text, whole, fraction, base, exponent))


def quantity_or_none(text: object) -> Quantity | None:
    """A quantity, or None for a missing or malformed one (validation reports those; the counting
    code of quota, limits and scheduling skips them)."""
    if text is None:
        return None
    try:
        return parse_quantity(str(text))
    except QuantityError:
        return None
