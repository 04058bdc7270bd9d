"""CRD validation rules end to end: check and cost a rule against its schema once, then evaluate
it per object. The one entry point the CRD feature needs (`x-kubernetes-validations`).

`compile_rule` does what upstream does when a CRD is written: type-check the rule (and its
messageExpression) with `self`/`oldSelf` typed by the schema, refuse a static cost over the limit,
and note whether the rule is a transition rule (it reads `oldSelf`, so it runs only on updates).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from svc.machinery.cel import types
from svc.machinery.cel.checker import CheckError, check_message_expression, check_rule
from svc.machinery.cel.environment import Program, environment
from svc.machinery.cel.estimate import PER_CALL_LIMIT, check_estimated_cost, estimate
from svc.machinery.cel.parser import Node
from svc.machinery.cel.schema_types import schema_type
from svc.machinery.cel.schema_values import Converter, converter
from svc.machinery.cel.values import NONE, CelError, Optional

SELF: Final = "self"
OLD_SELF: Final = "oldSelf"
_ENVIRONMENT: Final = environment(frozenset((SELF, OLD_SELF)))


@dataclass(frozen=True)
class CompiledRule:
    rule: Program
    message_expression: Program | None
    transition: bool
    estimated_cost: int
    convert: Converter | None
    optional_old_self: bool = False
    message_cost: int = 0

    def evaluate(self, value: Any, old: Any = None, *, cost_limit: int = PER_CALL_LIMIT) -> bool:
        """Whether `value` (and, for a transition rule, `old`) satisfies the rule."""
        return self.rule.evaluate(self.activation(value, old), cost_limit=cost_limit) is True

    def message(self, value: Any, old: Any = None, *, cost_limit: int = PER_CALL_LIMIT) -> str | None:
        """The messageExpression's text, or None when there is none."""
        if self.message_expression is None:
            return None
        return self.message_expression.evaluate(self.activation(value, old), cost_limit=cost_limit)

    def activation(self, value: Any, old: Any = None) -> dict[str, Any]:
        """`self` and `oldSelf` as the rule sees them; with `optionalOldSelf`, oldSelf is an optional
        (none when there is no old value)."""
        if self.optional_old_self:
            old_self: Any = NONE if old is None else Optional(self._typed(old))
        else:
            old_self = self._typed(old)
        return {SELF: self._typed(value), OLD_SELF: old_self}

    def _typed(self, value: Any) -> Any:
        return value if self.convert is None else self.convert(value)


def _reads(node: Any, name: str) -> bool:
    if isinstance(node, tuple):
        if node[:2] == ("ident", name):
            return True
        return any(_reads(part, name) for part in node[1:])
    if isinstance(node, list):
        return any(_reads(part, name) for part in node)
    return False


def compile_rule(
    schema: Mapping[str, Any],
    rule: str,
    *,
    message_expression: str = "",
    optional_old_self: bool = False,
    check_cost: bool = True,
) -> CompiledRule:
    """Raises `CelError` with upstream's text: `compilation failed: ...`, a bool/string result
    error, or `estimated rule cost exceeds budget ...`. With `optional_old_self`, `oldSelf` is
    typed `optional(T)`, as upstream declares it for such rules. Without `check_cost` the estimate
    is only returned: CRD validation multiplies it by how often the rule can run before judging it."""
    declared = schema_type(schema)
    old_declared = types.optional_of(declared) if optional_old_self else declared
    declarations = {SELF: declared, OLD_SELF: old_declared}
    try:
        checked = check_rule(rule, declarations)
    except CheckError as err:
        raise CelError(_compilation(err)) from err
    cost = check_estimated_cost(checked) if check_cost else estimate(checked)
    message = None
    message_cost = 0
    if message_expression:
        try:
            message_cost = estimate(check_message_expression(message_expression, declarations))
        except CheckError as err:
            raise CelError(_compilation(err)) from err
        message = _ENVIRONMENT.compile(message_expression)
    root: Node = checked.parsed.root
    transition = _reads(root, OLD_SELF)
    program = _ENVIRONMENT.compile(rule)
    return CompiledRule(program, message, transition, cost, converter(schema), optional_old_self, message_cost)


def _compilation(err: CheckError) -> str:
    text = str(err)
    return text if not text.startswith("ERROR:") else f"compilation failed: {text}"
