"""`x-kubernetes-validations`: a CRD schema's CEL rules run over a custom resource, as upstream does.

Rules are compiled once per schema (`compile_rules`), each against the type of the node it sits on
(the root and embedded resources also see `apiVersion`, `kind` and `metadata.name`/`generateName`).
Validation walks the object and its old version side by side: object members correlate by key,
items of `x-kubernetes-list-type: map` lists by their keys, other list items not at all. A rule that
reads `oldSelf` (a transition rule) runs only where an old value correlates, unless it sets
`optionalOldSelf`, when it also runs on create with `oldSelf` an empty optional. Ratcheting: a rule
that does not read `oldSelf` is skipped where the value equals its old value.

A failing rule is reported at the node (plus its `fieldPath`), with the node's schema type as the
value and the rule's `message`, evaluated `messageExpression` or `failed rule: <rule>`; `reason`
picks the error type. The whole request shares upstream's runtime budget; running out stops all
further rules with upstream's message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from svc.api.crd.structural import Structural
from svc.machinery.cel import COST_EXCEEDED, CelError
from svc.machinery.cel.estimate import PER_CALL_LIMIT
from svc.machinery.cel.rules import CompiledRule, compile_rule
from svc.machinery.field_errors import OMITTED, FieldError, duplicate, forbidden, invalid, required
from svc.machinery.gotext import quote

RUNTIME_COST_BUDGET: Final = 10_000_000
"""Upstream's `RuntimeCELCostBudget`: the cost all rules of one request may spend together."""

MAX_MESSAGE_EXPRESSION_BYTES: Final = 5 * 1024
_OUT_OF_BUDGET: Final = "validation failed due to running out of cost budget, no further validation rules will be run"
_MESSAGE_OUT_OF_BUDGET: Final = (
    "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"
)
_MESSAGE_CALL_LIMIT: Final = (
    "no further validation rules will be run due to call cost exceeds limit for messageExpression"
)
_MISSING: Final[Any] = object()
NIL_PATH: Final = "<nil>"
"""The field of an error on the object root: upstream validates the root with a nil path, printed so."""
_FIELD_PATH_PART: Final = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]")


class _Budget:
    __slots__ = ("remaining",)

    def __init__(self, remaining: int) -> None:
        self.remaining = remaining


class _Stop(Exception):
    """Raised to end validation when the budget is spent; the errors so far stand."""


@dataclass(frozen=True)
class _Rule:
    spec: Mapping[str, Any]
    compiled: CompiledRule | None
    error: str = ""
    field_path: str = ""

    @property
    def text(self) -> str:
        """Upstream's `ruleErrorString`: the message when set, else the rule."""
        message = self.spec.get("message")
        return (
            message.strip() if isinstance(message, str) and message.strip() else str(self.spec.get("rule", "")).strip()
        )

    @property
    def default_message(self) -> str:
        message = self.spec.get("message")
        if isinstance(message, str) and message:
            return message.strip()
        return f"failed rule: {self.text}"


@dataclass
class RuleNode:
    """The rules of one structural node, and the nodes below it that have rules."""

    type: str
    rules: tuple[_Rule, ...] = ()
    properties: dict[str, RuleNode] = field(default_factory=dict)
    additional: RuleNode | None = None
    items: RuleNode | None = None
    map_keys: tuple[str, ...] = ()

    @property
    def has_rules(self) -> bool:
        """Whether there is a rule here or below (upstream builds no CEL validator otherwise)."""
        return bool(self.rules or self.properties or self.additional or self.items)

    def validate(self, obj: Any, old: Any = None) -> list[FieldError]:
        """The rules' errors for a whole value (`old` None on create), within the runtime budget."""
        errors: list[FieldError] = []
        try:
            self._walk(obj, _MISSING if old is None else old, "", errors, _Budget(RUNTIME_COST_BUDGET))
        except _Stop:
            pass
        return errors

    def _walk(self, value: Any, old: Any, path: str, errors: list[FieldError], budget: _Budget) -> None:
        if value is None:
            return
        unchanged = old is not _MISSING and value == old
        for rule in self.rules:
            self._run(rule, value, old, unchanged, path, errors, budget)
        if type(value) is dict:
            old_map = old if type(old) is dict else {}
            for key, item in value.items():
                node = self.properties.get(key)
                if node is not None:
                    node._walk(item, old_map.get(key, _MISSING), f"{path}.{key}" if path else key, errors, budget)
                elif self.additional is not None:
                    self.additional._walk(item, old_map.get(key, _MISSING), f"{path}[{key}]", errors, budget)
        elif type(value) is list and self.items is not None:
            old_items = self._old_items(old)
            for index, item in enumerate(value):
                before = old_items.get(self._key(item), _MISSING) if old_items else _MISSING
                self.items._walk(item, before, f"{path}[{index}]", errors, budget)

    def _key(self, item: Any) -> Any:
        return tuple(repr(item.get(key)) for key in self.map_keys) if type(item) is dict else None

    def _old_items(self, old: Any) -> dict[Any, Any]:
        if not self.map_keys or type(old) is not list:
            return {}
        return {self._key(item): item for item in old if type(item) is dict}

    def _run(
        self,
        rule: _Rule,
        value: Any,
        old: Any,
        unchanged: bool,
        path: str,
        errors: list[FieldError],
        budget: _Budget,
    ) -> None:
        compiled = rule.compiled
        if compiled is None:
            errors.append(invalid(path or NIL_PATH, self.type, f"rule compile error: {rule.error}"))
            return
        if compiled.transition:
            if old is _MISSING and not compiled.optional_old_self:
                return
        elif unchanged:
            return
        if budget.remaining <= 0:
            errors.append(invalid(path or NIL_PATH, self.type, _OUT_OF_BUDGET))
            raise _Stop
        try:
            # Typing `self` parses format date-time, duration and byte strings; one that does not parse
            # (the schema's format check reports it too) fails the rule as upstream's evaluation does.
            activation = compiled.activation(value, None if old is _MISSING else old)
            result, cost = compiled.rule.evaluate_with_cost(activation, cost_limit=PER_CALL_LIMIT)
        except CelError as err:
            errors.append(self._evaluation_error(rule, str(err), path))
            if str(err).startswith(COST_EXCEEDED):
                raise _Stop from err
            return
        if cost > budget.remaining:
            errors.append(invalid(path or NIL_PATH, self.type, _OUT_OF_BUDGET))
            raise _Stop
        budget.remaining -= cost
        if result is not True:
            errors.append(self._failure(rule, self._message(rule, activation, path, errors, budget), value, path))

    def _evaluation_error(self, rule: _Rule, text: str, path: str) -> FieldError:
        if text.startswith("no such overload"):
            detail = f"'{text}': call arguments did not match a supported operator, function or macro signature"
            return invalid(path or NIL_PATH, self.type, f"{detail} for rule: {rule.text}")
        if text.startswith(COST_EXCEEDED):
            detail = f"'{text}': no further validation rules will be run due to call cost exceeds limit"
            return invalid(path or NIL_PATH, self.type, f"{detail} for rule: {rule.text}")
        return invalid(path or NIL_PATH, self.type, f"{text} evaluating rule: {rule.text}")

    def _message(
        self, rule: _Rule, activation: dict[str, Any], path: str, errors: list[FieldError], budget: _Budget
    ) -> str:
        program = rule.compiled.message_expression if rule.compiled is not None else None
        if program is None:
            return rule.default_message
        source = str(rule.spec.get("messageExpression", ""))
        try:
            text, cost = program.evaluate_with_cost(activation, cost_limit=PER_CALL_LIMIT)
        except CelError as err:
            if str(err).startswith(COST_EXCEEDED):
                detail = f"{_MESSAGE_CALL_LIMIT}: {quote(source)}"
                errors.append(invalid(path or NIL_PATH, self.type, detail))
                raise _Stop from err
            return rule.default_message
        if cost > budget.remaining:
            errors.append(invalid(path or NIL_PATH, self.type, _MESSAGE_OUT_OF_BUDGET))
            raise _Stop
        budget.remaining -= cost
        trimmed = text.strip() if isinstance(text, str) else ""
        if not trimmed or "\n" in trimmed or len(trimmed.encode()) > MAX_MESSAGE_EXPRESSION_BYTES:
            return rule.default_message
        return trimmed

    def _failure(self, rule: _Rule, message: str, value: Any, path: str) -> FieldError:
        where = _child(path, rule.field_path) or NIL_PATH
        shown = OMITTED if self.type in ("object", "array") else value
        reason = rule.spec.get("reason")
        if reason == "FieldValueForbidden":
            return forbidden(where, message)
        if reason == "FieldValueRequired":
            return required(where, message)
        if reason == "FieldValueDuplicate":
            return duplicate(where, shown)
        return invalid(where, shown, message)


def _child(path: str, name: str) -> str:
    if not name:
        return path
    return f"{path}.{name}" if path else name


def normalized_field_path(node: Structural, field_path: Any) -> str:
    """A rule's `fieldPath` (`.a.b`, `.a['b.c']`) as upstream normalizes it against the schema:
    members of objects with properties are children (`a.b`), keys of maps are keys (`a[k]`)."""
    if not isinstance(field_path, str):
        return ""
    out = ""
    current: Structural | None = node
    for match in _FIELD_PATH_PART.finditer(field_path):
        name = match.group(1) if match.group(1) is not None else match.group(2)
        if name is None or current is None:
            return out
        if current.properties:
            out = f"{out}.{name}" if out else name
            current = current.properties.get(name)
        else:
            out = f"{out}[{name}]"
            current = current.additional_properties
    return out


def compile_rules(root: Structural) -> RuleNode:
    """The rule tree of a schema; a node without rules below it is left out."""
    return _compile(root, resource=True) or RuleNode(type=root.type)


def _compile(node: Structural, *, resource: bool = False) -> RuleNode | None:
    rules = tuple(_compile_one(node, spec, resource or node.embedded_resource) for spec in node.validations)
    properties = {name: sub for name, prop in node.properties.items() if (sub := _compile(prop)) is not None}
    additional = _compile(node.additional_properties) if node.additional_properties is not None else None
    items = _compile(node.items) if node.items is not None else None
    if not (rules or properties or additional or items):
        return None
    keys = node.list_map_keys if node.list_type == "map" else ()
    return RuleNode(node.type, rules, properties, additional, items, keys)


def _compile_one(node: Structural, spec: Mapping[str, Any], resource: bool) -> _Rule:
    schema = {**node.schema, "x-kubernetes-embedded-resource": True} if resource else node.schema
    try:
        compiled = compile_rule(
            schema,
            str(spec.get("rule", "")),
            message_expression=str(spec.get("messageExpression") or ""),
            optional_old_self=spec.get("optionalOldSelf") is True,
        )
    except CelError as err:
        return _Rule(spec, None, str(err))
    return _Rule(spec, compiled, field_path=normalized_field_path(node, spec.get("fieldPath")))
