"""Go-style durations (`5m0s`, `1h30m`, `300ms`, `0`), as every duration flag and option is written."""

from __future__ import annotations

import re

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds in a Go duration string; raises ValueError with Go's wording on bad input."""
    original = text
    sign = 1.0
    if text[:1] in "+-":
        sign, text = (-1.0 if text[0] == "-" else 1.0), text[1:]
    if text == "0":
        return 0.0
    if not text:
        raise ValueError(f'time: invalid duration "{original}"')
    total, position = 0.0, 0
    while position < len(text):
        match = _PART.match(text, position)
        if match is None:
            if re.match(r"\d+(\.\d*)?$", text[position:]):
                raise ValueError(f'time: missing unit in duration "{original}"')
            raise ValueError(f'time: invalid duration "{original}"')
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    return sign * total


def format_duration(seconds: float) -> str:
    """Go's `Duration.String()` for whole-second and larger values (`1h0m0s`, `5m0s`, `30s`)."""
    if seconds == 0:
        return "0s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    fraction = seconds - whole
    sec_text = f"{secs + fraction:g}s"
    if hours:
        return f"{hours}h{minutes}m{sec_text}"
    if minutes:
        return f"{minutes}m{sec_text}"
    return sec_text
