"""Go's exact text for values, numbers and strings, in one place for the whole server and CLI.

Clients, kubectl-compatible printers and upstream error messages show what Go's fmt, strconv and
encoding/json print (`1e+06`, `map[a:1]`, `"x\\u003cy"`, `strconv.ParseBool: parsing "x": invalid syntax`),
and users and tests compare those texts byte for byte, so the Go forms are reproduced here, once, by job:
`numbers` (strconv floats and booleans), `quoting` (strconv quoting, JSON strings), `values` (`%T`, `%v`,
`%#v`, the fmt verbs, json.Marshal) and `printf` (Sprintf, Sprint, Sprintln).
"""

from svc.machinery.gotext.numbers import format_float, json_float, parse_bool
from svc.machinery.gotext.printf import sprint, sprintf, sprintln
from svc.machinery.gotext.quoting import can_backquote, is_print, json_string, quote, quote_rune
from svc.machinery.gotext.values import (
    GoByte,
    GoInt,
    Spec,
    basic_kind,
    format_sharp_v,
    format_v,
    format_value,
    json_marshal,
    type_name,
)

__all__ = [
    "GoByte",
    "GoInt",
    "Spec",
    "basic_kind",
    "can_backquote",
    "format_float",
    "format_sharp_v",
    "format_v",
    "format_value",
    "is_print",
    "json_float",
    "json_marshal",
    "json_string",
    "parse_bool",
    "quote",
    "quote_rune",
    "sprint",
    "sprintf",
    "sprintln",
    "type_name",
]
