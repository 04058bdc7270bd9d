"""Field selectors (`metadata.name=x,status.phase!=Running`): upstream's syntax, matching and printing.

Terms are split on unescaped commas and sorted before parsing, so both the first error reported and
the printed form are upstream's. Only `\\`, `,` and `=` may be escaped in a value; the field name takes
no escapes and ends at the first operator. Nothing is trimmed: `a = b` compares field `a ` with ` b`.
A term with neither field nor value (`=`) selects everything and is dropped. Written by hand: no
maintained Python package parses this syntax.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from svc.machinery.labels import Operator, SelectorError

_TERM_OPERATORS: Final = (("!=", Operator.NOT_EQUALS), ("==", Operator.EQUALS), ("=", Operator.EQUALS))
_ESCAPABLE: Final = frozenset("\\,=")


@dataclass(frozen=True)
class FieldRequirement:
    field: str
    operator: Operator
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        equal = fields.get(self.field, "") == self.value
        return equal if self.operator is Operator.EQUALS else not equal

    def __str__(self) -> str:
        symbol = "=" if self.operator is Operator.EQUALS else "!="
        return self.field + symbol + escape_value(self.value)


class FieldSelector:
    """An AND of field requirements; none selects everything. A missing field reads as ""."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: Iterable[FieldRequirement] = ()) -> None:
        self.requirements: list[FieldRequirement] = list(requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements

    def matches(self, fields: Mapping[str, str]) -> bool:
        return all(requirement.matches(fields) for requirement in self.requirements)

    def __str__(self) -> str:
        return ",".join(str(requirement) for requirement in self.requirements)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSelector):
            return NotImplemented
        return self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash(tuple(self.requirements))


def escape_value(value: str) -> str:
    """A literal value written so that it parses back unchanged."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_value(text: str) -> str:
    if not any(char in _ESCAPABLE for char in text):
        return text
    out: list[str] = []
    escaped = False
    for char in text:
        if escaped:
            if char not in _ESCAPABLE:
                raise SelectorError(f"invalid field selector: invalid escape sequence: \\{char}")
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            # Upstream prints the character's code point, not the character.
            raise SelectorError(f"invalid field selector: unescaped character in value: {ord(char)}")
        else:
            out.append(char)
    if escaped:
        raise SelectorError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    """The comma-separated terms, an escaped comma kept (with its backslash) inside its term."""
    terms, start, escaped = [], 0, False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            terms.append(text[start:index])
            start = index + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, Operator, str] | None:
    for index in range(len(term)):
        for symbol, operator in _TERM_OPERATORS:
            if term.startswith(symbol, index):
                return term[:index], operator, term[index + len(symbol) :]
    return None


def parse_field_selector(text: str) -> FieldSelector:
    """The selector a `fieldSelector` string means; the empty string selects everything."""
    requirements: list[FieldRequirement] = []
    for term in sorted(_split_terms(text)) if text else []:
        if not term:
            continue
        parts = _split_term(term)
        if parts is None:
            raise SelectorError(f"invalid selector: '{text}'; can't understand '{term}'")
        field, operator, raw_value = parts
        value = unescape_value(raw_value)
        if field or value:
            requirements.append(FieldRequirement(field, operator, value))
    return FieldSelector(requirements)
