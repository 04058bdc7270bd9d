"""encoding/json's error texts for a document that does not decode into a Go value.

Upstream decodes a few annotation values with `json.Unmarshal` and reports its error text verbatim
(the pod tolerations annotation, for one). Python's decoder finds the same faults; this module words
them as Go's scanner and decoder do: syntax first (`invalid character 'x' looking for beginning of
value`, `unexpected end of JSON input`), then the first value of the wrong type (`json: cannot
unmarshal string into Go struct field Toleration.Key of type string`). The scanner's rarer texts (inside
literals, numbers and escapes) are given as the nearest of these.
"""

from __future__ import annotations

import json
from typing import Any

from svc.machinery.gotext.quoting import quote

END_OF_INPUT = "unexpected end of JSON input"


def quote_char(char: str) -> str:
    """encoding/json's `quoteChar`: the offending character in single quotes."""
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    return "'" + quote(char)[1:-1] + "'"


def _enclosing(document: str, position: int) -> str:
    """The innermost open bracket before `position` ('{', '[' or '' at the top level), strings skipped."""
    stack: list[str] = []
    in_string = escaped = False
    for char in document[:position]:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            stack.append(char)
        elif char in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else ""


def syntax_error(document: str) -> str | None:
    """The scanner's text for a document that is not JSON, or None when it is."""
    try:
        json.loads(document)
    except json.JSONDecodeError as error:
        position = error.pos
        if position >= len(document.rstrip()) or error.msg.startswith("Unterminated string"):
            return END_OF_INPUT
        where = quote_char(document[position])
        if error.msg == "Extra data":
            return f"invalid character {where} after top-level value"
        if error.msg.startswith("Expecting property name"):
            return f"invalid character {where} looking for beginning of object key string"
        if error.msg == "Expecting ':' delimiter":
            return f"invalid character {where} after object key"
        if error.msg == "Expecting ',' delimiter":
            context = "object key:value pair" if _enclosing(document, position) == "{" else "array element"
            return f"invalid character {where} after {context}"
        if error.msg.startswith("Invalid control character"):
            return f"invalid character {where} in string literal"
        return _value_start_error(document, position) or f"invalid character {where} looking for beginning of value"
    return None


_LITERALS = {"t": "true", "f": "false", "n": "null"}


def _value_start_error(document: str, position: int) -> str | None:
    """The scanner's text for a value that starts well and goes wrong: a misspelt `true`, `false` or
    `null`, or a minus sign without digits."""
    start = document[position]
    rest = document[position + 1 :]
    if start == "-":
        if not rest:
            return END_OF_INPUT
        return None if rest[0].isdigit() else f"invalid character {quote_char(rest[0])} in numeric literal"
    literal = _LITERALS.get(start)
    if literal is None:
        return None
    for index, expected in enumerate(literal[1:]):
        if index >= len(rest):
            return END_OF_INPUT
        if rest[index] != expected:
            return (
                f"invalid character {quote_char(rest[index])} in literal {literal} (expecting {quote_char(expected)})"
            )
    return None


def json_kind(value: Any, *, into_number: bool = False) -> str:
    """How the decoder names a JSON value in a type error; a number that does not fit a Go integer
    is named with its literal (`number 1.5`)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {json.dumps(value)}" if into_number else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def type_error(value: Any, go_type: str, field: str = "") -> str:
    """`json: cannot unmarshal <kind> into Go value of type T`, or `... Go struct field S.F of type T`."""
    target = f"Go struct field {field}" if field else "Go value"
    kind = json_kind(value, into_number=go_type.startswith(("int", "uint")))
    return f"json: cannot unmarshal {kind} into {target} of type {go_type}"
