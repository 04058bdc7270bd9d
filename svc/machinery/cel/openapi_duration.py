"""The OpenAPI `duration` string format, as upstream's schema validation and CEL read it.

kube-openapi's format registry (the `strfmt` package) accepts more than Go durations: when Go's
parser refuses a string, a looser grammar of whole numbers with unit words is tried, so `1d`, `2w`,
`3 days`, `90 sec` and `1h 30min` are durations of a CRD field of format `duration`, and CEL sees
them as such. No maintained Python library reads this grammar, so it is written here: day and week
units, unit words matched case-insensitively (the last spelling of each unit by prefix: `hours`,
`weeks`), text between the numbers ignored once one unit matched.
"""

from __future__ import annotations

import re
from typing import Final

from svc.machinery.cel.conversions import parse_duration
from svc.machinery.cel.values import CelError, Duration, duration_of

_NANOS_PER_SECOND: Final = 1_000_000_000
_SHAPE: Final = re.compile(r"\s*(?:\d+\s*[A-Za-zµ]+\s*)+")
_PART: Final = re.compile(r"(\d+)\s*([A-Za-zµ]+)")
_INT64: Final = 1 << 63
_UNITS: Final = (
    (("ns", "nano"), 1),
    (("us", "µs", "micro"), 1_000),
    (("ms", "milli"), 1_000_000),
    (("s", "sec"), _NANOS_PER_SECOND),
    (("m", "min"), 60 * _NANOS_PER_SECOND),
    (("h", "hr", "hour"), 3600 * _NANOS_PER_SECOND),
    (("d", "day"), 86400 * _NANOS_PER_SECOND),
    (("w", "wk", "week"), 7 * 86400 * _NANOS_PER_SECOND),
)


def _unit_nanos(unit: str) -> int:
    """What one of `unit` is worth, summed over every unit it names (0: none)."""
    worth = 0
    for spellings, nanos in _UNITS:
        last = len(spellings) - 1
        for index, spelling in enumerate(spellings):
            if unit == spelling or (index == last and unit.startswith(spelling)):
                worth += nanos
    return worth


def parse_openapi_duration(text: str) -> Duration:
    """The duration `text` holds, in integer nanoseconds; a CelError in upstream's words when none."""
    try:
        return parse_duration(text)
    except CelError:
        pass
    if _SHAPE.fullmatch(text) is None:
        raise CelError(f"unable to parse {text} as duration")
    total, matched = 0, False
    for number, unit in _PART.findall(text):
        factor = int(number)
        if factor >= _INT64:
            raise CelError(f'strconv.Atoi: parsing "{number}": value out of range')
        worth = _unit_nanos(unit.lower())
        if worth:
            matched = True
            total += factor * worth
    if not matched:
        raise CelError(f"unable to parse {text} as duration")
    wrapped = (total + _INT64) % (2 * _INT64) - _INT64  # Go's int64 arithmetic wraps
    return duration_of(wrapped)
