"""Label selectors: upstream's text syntax, the metav1 `LabelSelector` object form, matching and printing.

The grammar is upstream's (`x in (a,b)`, `x notin (a)`, `x`, `!x`, `x=a`, `x==a`, `x!=a`, `x>1`, `x<1`,
requirements joined by commas), and so are its quirks, because clients send selectors that only parse the
upstream way: `in` and `notin` are ordinary words where a value is expected, `x in ()` holds the empty
value, repeated commas inside a set add the empty value, and a NUL character ends the token it is in.
Requirements are kept sorted by key, and `str()` prints them the way upstream does, so a selector
echoed back (in a Scale's status, say) is byte-for-byte upstream's. Written by hand: no maintained Python
package parses this grammar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Final

from svc.machinery.field_errors import FieldError, aggregate_message, forbidden, invalid, required
from svc.machinery.gotext import quote
from svc.machinery.validation import is_qualified_name, is_valid_label_value, validate_label_name, validate_labels


class SelectorError(ValueError):
    """A label or field selector that does not parse; the message is upstream's."""


class Operator(StrEnum):
    """How a requirement relates a key to its values (upstream `selection.Operator`)."""

    DOES_NOT_EXIST = "!"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    IN = "in"
    NOT_EQUALS = "!="
    NOT_IN = "notin"
    EXISTS = "exists"
    GREATER_THAN = "gt"
    LESS_THAN = "lt"


_BINARY_OPERATORS: Final = "in, notin, =, ==, !=, gt, lt"
_INT64: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _int64(text: str) -> int | None:
    """The number Go's `strconv.ParseInt(text, 10, 64)` reads, or None where it fails."""
    if not _INT64.fullmatch(text):
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: Operator
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op is Operator.EXISTS:
            return self.key in labels
        if op is Operator.DOES_NOT_EXIST:
            return self.key not in labels
        if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
            return self.key not in labels or labels[self.key] not in self.values
        if self.key not in labels or len(self.values) != 1:
            return False
        have, want = _int64(labels[self.key]), _int64(self.values[0])
        if have is None or want is None:
            return False
        return have > want if op is Operator.GREATER_THAN else have < want

    def __str__(self) -> str:
        if self.operator is Operator.DOES_NOT_EXIST:
            return "!" + self.key
        if self.operator is Operator.EXISTS:
            return self.key
        values = ",".join(sorted(self.values) if len(self.values) > 1 else self.values)
        if self.operator in (Operator.IN, Operator.NOT_IN):
            return f"{self.key} {self.operator.value} ({values})"
        return self.key + _SYMBOLS_OUT[self.operator] + values


_SYMBOLS_OUT: Final = {
    Operator.EQUALS: "=",
    Operator.DOUBLE_EQUALS: "==",
    Operator.NOT_EQUALS: "!=",
    Operator.GREATER_THAN: ">",
    Operator.LESS_THAN: "<",
}


class LabelSelector:
    """An AND of requirements; no requirements selects everything, `nothing()` selects nothing."""

    __slots__ = ("_nothing", "requirements")

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(sorted(requirements, key=lambda item: item.key))
        self._nothing = nothing

    @classmethod
    def nothing(cls) -> LabelSelector:
        return cls(nothing=True)

    @property
    def empty(self) -> bool:
        """True when the selector does not restrict anything."""
        return not self._nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        return not self._nothing and all(requirement.matches(labels) for requirement in self.requirements)

    def __str__(self) -> str:
        return ",".join(str(requirement) for requirement in self.requirements)

    def __repr__(self) -> str:
        return "LabelSelector(nothing)" if self._nothing else f"LabelSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return (self.requirements, self._nothing) == (other.requirements, other._nothing)

    def __hash__(self) -> int:
        return hash((self.requirements, self._nothing))


def new_requirement(key: str, operator: Operator, values: Sequence[str]) -> Requirement:
    """A checked requirement; raises SelectorError with upstream's aggregated field errors."""
    errors = [invalid("key", key, "; ".join(messages))] if (messages := is_qualified_name(key)) else []
    shown: Any = list(values) if values else None
    if operator in (Operator.IN, Operator.NOT_IN):
        if not values:
            errors.append(invalid("values", shown, "for 'in', 'notin' operators, values set can't be empty"))
    elif operator in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS):
        if len(values) != 1:
            errors.append(invalid("values", shown, "exact-match compatibility requires one single value"))
    elif operator in (Operator.EXISTS, Operator.DOES_NOT_EXIST):
        if values:
            errors.append(invalid("values", shown, "values set must be empty for exists and does not exist"))
    else:
        if len(values) != 1:
            errors.append(invalid("values", shown, "for 'Gt', 'Lt' operators, exactly one value is required"))
        errors += [
            invalid(f"values[{index}]", value, "for 'Gt', 'Lt' operators, the value must be an integer")
            for index, value in enumerate(values)
            if _int64(value) is None
        ]
    for index, value in enumerate(values):
        if messages := is_valid_label_value(value):
            errors.append(invalid(f"values[{index}][{key}]", value, "; ".join(messages)))
    if errors:
        raise SelectorError(aggregate_message(errors))
    return Requirement(key, operator, tuple(values))


class _Token(Enum):
    END = "end"
    CLOSE = ")"
    COMMA = ","
    NOT = "!"
    DOUBLE_EQUALS = "=="
    EQUALS = "="
    GREATER = ">"
    IDENTIFIER = "identifier"
    IN = "in"
    LESS = "<"
    NOT_EQUALS = "!="
    NOT_IN = "notin"
    OPEN = "("


_SYMBOLS: Final = {
    token.value: token for token in _Token if token not in (_Token.END, _Token.IDENTIFIER, _Token.IN, _Token.NOT_IN)
}
_KEYWORDS: Final = {"in": _Token.IN, "notin": _Token.NOT_IN}
_SPECIAL: Final = frozenset("=!(),><")
_BLANK: Final = frozenset(" \t\r\n")
_END_CHAR: Final = "\0"


def _lex(text: str) -> list[tuple[_Token, str]]:
    """Tokens up to the end of the text (or a NUL where a token would start), the end marker last."""
    tokens: list[tuple[_Token, str]] = []
    position, size = 0, len(text)
    while True:
        while position < size and text[position] in _BLANK:
            position += 1
        if position >= size or text[position] == _END_CHAR:
            tokens.append((_Token.END, ""))
            return tokens
        start = position
        if text[position] in _SPECIAL:
            literal = text[position]
            position += 1
            while position < size and literal + text[position] in _SYMBOLS:
                literal += text[position]
                position += 1
            if position < size and text[position] == _END_CHAR:
                position += 1
            tokens.append((_SYMBOLS[literal], literal))
            continue
        while position < size and text[position] not in _SPECIAL and text[position] not in _BLANK:
            if text[position] == _END_CHAR:
                break
            position += 1
        literal = text[start:position]
        if position < size and text[position] == _END_CHAR:
            position += 1
        tokens.append((_KEYWORDS.get(literal, _Token.IDENTIFIER), literal))


_OPERATORS: Final = {
    _Token.IN: Operator.IN,
    _Token.EQUALS: Operator.EQUALS,
    _Token.DOUBLE_EQUALS: Operator.DOUBLE_EQUALS,
    _Token.GREATER: Operator.GREATER_THAN,
    _Token.LESS: Operator.LESS_THAN,
    _Token.NOT_IN: Operator.NOT_IN,
    _Token.NOT_EQUALS: Operator.NOT_EQUALS,
}


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _lex(text)
        self.position = 0

    def peek(self, *, keywords: bool = False) -> tuple[_Token, str]:
        """The next token; `in` and `notin` count as identifiers except where an operator is due."""
        token, literal = self.tokens[min(self.position, len(self.tokens) - 1)]
        if not keywords and token in (_Token.IN, _Token.NOT_IN):
            token = _Token.IDENTIFIER
        return token, literal

    def take(self, *, keywords: bool = False) -> tuple[_Token, str]:
        item = self.peek(keywords=keywords)
        self.position += 1
        return item

    def selector(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            token, literal = self.peek()
            if token is _Token.END:
                return requirements
            if token not in (_Token.IDENTIFIER, _Token.NOT):
                raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self.requirement())
            except SelectorError as error:
                raise SelectorError(f"unable to parse requirement: {error}") from None
            token, literal = self.take()
            if token is _Token.END:
                return requirements
            if token is not _Token.COMMA:
                raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            after, after_literal = self.peek()
            if after not in (_Token.IDENTIFIER, _Token.NOT):
                raise SelectorError(f"found '{after_literal}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        negated = False
        token, key = self.take()
        if token is _Token.NOT:
            negated = True
            token, key = self.take()
        if token is not _Token.IDENTIFIER:
            raise SelectorError(f"found '{key}', expected: identifier")
        if messages := is_qualified_name(key):
            raise SelectorError(str(invalid("<nil>", key, "; ".join(messages))))
        if negated:
            return new_requirement(key, Operator.DOES_NOT_EXIST, ())
        if self.peek()[0] in (_Token.END, _Token.COMMA):
            return new_requirement(key, Operator.EXISTS, ())
        token, literal = self.take(keywords=True)
        operator = _OPERATORS.get(token)
        if operator is None:
            raise SelectorError(f"found '{literal}', expected: {_BINARY_OPERATORS}")
        values = self.value_set() if operator in (Operator.IN, Operator.NOT_IN) else self.exact_value()
        return new_requirement(key, operator, sorted(values))

    def value_set(self) -> set[str]:
        token, literal = self.take()
        if token is not _Token.OPEN:
            raise SelectorError(f"found '{literal}' expected: '('")
        token, literal = self.peek()
        if token is _Token.CLOSE:
            self.take()
            return {""}
        if token not in (_Token.IDENTIFIER, _Token.COMMA):
            raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self.identifiers()
        self.take()
        return values

    def identifiers(self) -> set[str]:
        """A comma-separated list up to ')', where an empty item stands for the empty value."""
        values: set[str] = set()
        while True:
            token, literal = self.take()
            if token is _Token.IDENTIFIER:
                values.add(literal)
                after, after_literal = self.peek()
                if after is _Token.CLOSE:
                    return values
                if after is not _Token.COMMA:
                    raise SelectorError(f"found '{after_literal}', expected: ',' or ')'")
            elif token is _Token.COMMA:
                after, _ = self.peek()
                if not values or after in (_Token.CLOSE, _Token.COMMA):
                    values.add("")
                if after is _Token.CLOSE:
                    return values
            else:
                raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> list[str]:
        if self.peek()[0] in (_Token.END, _Token.COMMA):
            return [""]
        token, literal = self.take()
        if token is not _Token.IDENTIFIER:
            raise SelectorError(f"found '{literal}', expected: identifier")
        return [literal]


def parse_label_selector(text: str) -> LabelSelector:
    """The selector a `labelSelector` string means; the empty string selects everything."""
    return LabelSelector(_Parser(text).selector())


_OBJECT_OPERATORS: Final = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
}


def _members(selector: Mapping[str, Any]) -> tuple[Mapping[str, Any], list[Any]]:
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping):
        raise SelectorError("matchLabels: must be an object")
    if not isinstance(expressions, list):
        raise SelectorError("matchExpressions: must be an array")
    return match_labels, expressions


def _strings(value: Any, what: str) -> list[str]:
    items = value or []
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise SelectorError(f"{what}: must be an array of strings")
    return items


def label_selector_from_dict(selector: Mapping[str, Any] | None) -> LabelSelector:
    """The selector a metav1 LabelSelector object means: none selects nothing, an empty one everything."""
    if selector is None:
        return LabelSelector.nothing()
    if not isinstance(selector, Mapping):
        raise SelectorError("label selector: must be an object")
    match_labels, expressions = _members(selector)
    requirements = []
    for key, value in sorted(match_labels.items(), key=lambda item: str(item[0])):
        if not isinstance(key, str) or not isinstance(value, str):
            raise SelectorError(f"matchLabels[{key}]: must be a string")
        requirements.append(new_requirement(key, Operator.EQUALS, [value]))
    for expression in expressions:
        if not isinstance(expression, Mapping):
            raise SelectorError("matchExpressions: every item must be an object")
        name = expression.get("operator") or ""
        operator = _OBJECT_OPERATORS.get(name) if isinstance(name, str) else None
        if operator is None:
            raise SelectorError(f"{quote(str(name))} is not a valid label selector operator")
        key = expression.get("key") or ""
        if not isinstance(key, str):
            raise SelectorError("matchExpressions: key must be a string")
        requirements.append(new_requirement(key, operator, _strings(expression.get("values"), "values")))
    return LabelSelector(requirements)


def validate_label_selector(
    selector: Mapping[str, Any] | None, path: str, *, allow_invalid_label_value: bool = False
) -> list[FieldError]:
    """Upstream's field errors for a LabelSelector object inside a resource (a workload's `spec.selector`)."""
    if selector is None:
        return []
    if not isinstance(selector, Mapping):
        return [invalid(path, selector, "must be an object")]
    try:
        match_labels, expressions = _members(selector)
    except SelectorError as error:
        return [invalid(path, dict(selector), str(error))]
    errors = validate_labels({str(key): str(value) for key, value in match_labels.items()}, f"{path}.matchLabels")
    for index, expression in enumerate(expressions):
        where = f"{path}.matchExpressions[{index}]"
        if not isinstance(expression, Mapping):
            errors.append(invalid(where, expression, "must be an object"))
            continue
        operator, values = expression.get("operator") or "", expression.get("values") or []
        if operator in ("In", "NotIn"):
            if not values:
                errors.append(required(f"{where}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                errors.append(forbidden(f"{where}.values", detail))
        else:
            errors.append(invalid(f"{where}.operator", operator, "not a valid selector operator"))
        errors += validate_label_name(str(expression.get("key") or ""), f"{where}.key")
        if not allow_invalid_label_value:
            for value_index, value in enumerate(values if isinstance(values, list) else []):
                text = str(value)
                errors += [invalid(f"{where}.values[{value_index}]", text, m) for m in is_valid_label_value(text)]
    return errors
