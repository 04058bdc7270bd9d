"""fmt.Sprintf, Sprint and Sprintln over JSON-decoded values.

kubectl's Go templates call `printf`, `print` and `println`, and users see their exact output, including
fmt's complaints (`%!d(MISSING)`, `%!(EXTRA string=x)`); no Python formatter reproduces them, so the
directive parser is written here by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from svc.machinery.gotext.values import Spec, format_v, format_value, type_name


def sprintf(template: str, args: Sequence[Any]) -> str:
    """fmt.Sprintf for the verbs that make sense on JSON values (no `*` widths or `[n]` indexes)."""
    out: list[str] = []
    position = 0
    used = 0
    length = len(template)
    while position < length:
        char = template[position]
        if char != "%":
            out.append(char)
            position += 1
            continue
        position += 1
        spec = Spec()
        while position < length and template[position] in "-+# 0":
            flag = template[position]
            spec.minus |= flag == "-"
            spec.plus |= flag == "+"
            spec.sharp |= flag == "#"
            spec.space |= flag == " "
            spec.zero |= flag == "0"
            position += 1
        start = position
        while position < length and template[position].isdigit():
            position += 1
        if position > start:
            spec.width = int(template[start:position])
        if position < length and template[position] == ".":
            position += 1
            start = position
            while position < length and template[position].isdigit():
                position += 1
            spec.precision = int(template[start:position] or "0")
        if position >= length:
            out.append("%!(NOVERB)")
            break
        verb = template[position]
        position += 1
        if verb == "%":
            out.append("%")
            continue
        if used >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        spec.zero = spec.zero and not spec.minus
        out.append(format_value(args[used], verb, spec))
        used += 1
    if used < len(args):
        extra = ", ".join(_bad_extra(arg) for arg in args[used:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def _bad_extra(value: Any) -> str:
    return "<nil>" if value is None else f"{type_name(value)}={format_v(value)}"


def sprint(args: Sequence[Any]) -> str:
    """fmt.Sprint: operands side by side, a space between two that are both not strings."""
    out: list[str] = []
    for index, arg in enumerate(args):
        if index > 0 and not isinstance(arg, str) and not isinstance(args[index - 1], str):
            out.append(" ")
        out.append(format_v(arg))
    return "".join(out)


def sprintln(args: Sequence[Any]) -> str:
    """fmt.Sprintln: operands separated by spaces, then a newline."""
    return " ".join(format_v(arg) for arg in args) + "\n"
