"""A policy's CEL, compiled once per policy generation: its variables, match conditions and the
expressions each policy kind adds (validations, audit annotations, mutations).

Expressions that do not compile are kept with their error instead of failing the whole policy, as
upstream does: evaluating one yields the compilation error, which the policy's failurePolicy then
turns into a rejection or nothing. (Creating such a policy is refused anyway, see
`svc/api/validation/admission_policies.py`; this covers policies stored before that.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from svc.machinery.cel.composition import Composition
from svc.machinery.cel.cost import CostExceeded
from svc.machinery.cel.environment import Program
from svc.machinery.cel.values import CelError

OBJECT: Final = "object"
OLD_OBJECT: Final = "oldObject"
REQUEST: Final = "request"
PARAMS: Final = "params"
NAMESPACE_OBJECT: Final = "namespaceObject"
AUTHORIZER: Final = "authorizer"
REQUEST_RESOURCE: Final = "authorizer.requestResource"
DECLARED: Final = (OBJECT, OLD_OBJECT, REQUEST, PARAMS, NAMESPACE_OBJECT, AUTHORIZER, REQUEST_RESOURCE)
MUTATING_DECLARED: Final = (*DECLARED, "Object", "JSONPatch")
"""Mutating policies construct `Object{...}` apply configurations and `JSONPatch{...}` operations."""
RUNTIME_COST_BUDGET: Final = 10_000_000
"""Upstream's `RuntimeCELCostBudget`: what one policy binding's evaluation may spend in total."""
OUT_OF_BUDGET: Final = "validation failed due to running out of cost budget, no further validation rules will be run"


class EvaluationError(Exception):
    """An expression that failed to compile or evaluate, with upstream's message for it."""


@dataclass(frozen=True)
class Expression:
    text: str
    program: Program | None
    error: str = ""

    def run(self, act: dict[str, Any]) -> Any:
        """The value; raises `EvaluationError` with upstream's wording, `CostExceeded` as is."""
        if self.program is None:
            raise EvaluationError(self.error)
        try:
            return self.program.run(act)
        except CostExceeded:
            raise
        except CelError as err:
            raise EvaluationError(f"expression '{self.text}' resulted in error: {err}") from err


def _items(spec: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [entry for entry in spec.get(key) or () if isinstance(entry, Mapping)]


class PolicyExpressions:
    """Variables and matchConditions, shared by validating and mutating policies."""

    def __init__(self, spec: Mapping[str, Any], declared: tuple[str, ...] = DECLARED) -> None:
        variables = [(str(v.get("name", "")), str(v.get("expression", ""))) for v in _items(spec, "variables")]
        try:
            self.composition = Composition(variables, declared)
        except CelError as err:
            # A variable that does not compile: every expression of the policy fails with its error.
            self.composition = Composition([], declared)
            self.variables_error = f"compilation error: {err}"
        else:
            self.variables_error = ""
        self.match_conditions = [
            (str(c.get("name", "")), self.compile(str(c.get("expression", ""))))
            for c in _items(spec, "matchConditions")
        ]
        # Variables that cost a lookup or a thread hop are provided only to policies that mention them.
        text = repr(spec)
        self.uses_authorizer = AUTHORIZER in text
        self.uses_namespace = NAMESPACE_OBJECT in text

    def compile(self, text: str) -> Expression:
        if self.variables_error:
            return Expression(text, None, self.variables_error)
        try:
            return Expression(text, self.composition.compile(text))
        except CelError as err:
            return Expression(text, None, f"compilation error: {err}")

    def activation(self, values: Mapping[str, Any]) -> dict[str, Any]:
        return self.composition.activation(values, cost_limit=RUNTIME_COST_BUDGET)

    def matches(self, act: dict[str, Any]) -> bool:
        """Whether every matchCondition holds. A false one wins over an error in another, as
        upstream; an error with no false one raises `EvaluationError`."""
        failure = ""
        for name, expression in self.match_conditions:
            try:
                result = expression.run(act)
            except (EvaluationError, CostExceeded) as err:
                failure = failure or f"matchCondition '{name}' resulted in error: {err}"
                continue
            if result is False:
                return False
            if result is not True:
                failure = failure or f"matchCondition '{name}' resulted in error: result is not a boolean"
        if failure:
            raise EvaluationError(failure)
        return True
