"""A ValidatingAdmissionPolicy compiled, and what evaluating it on one request decides.

Each validation gives a decision: admit, or deny with a message (the messageExpression's string,
else `message`, else `failed expression: <expression>`) and a reason (`Invalid` unless set). An
expression that fails to evaluate denies with its error under `failurePolicy: Fail` and admits
under `Ignore`; running out of the cost budget stops the remaining validations. Audit annotations
publish their string values, skip null ones, and fail like validations when they fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from svc.apiserver.admission.matching import MatchCriteria
from svc.apiserver.admission.plugins.policy.expressions import (
    OUT_OF_BUDGET,
    EvaluationError,
    Expression,
    PolicyExpressions,
)
from svc.machinery.cel.cost import CostExceeded

INVALID = "Invalid"


@dataclass(frozen=True)
class Decision:
    deny: bool
    message: str = ""
    reason: str = ""
    index: int = 0


@dataclass(frozen=True)
class _Validation:
    expression: Expression
    message: str
    message_expression: Expression | None
    reason: str


@dataclass(frozen=True)
class Outcome:
    decisions: list[Decision]
    annotations: list[tuple[str, str]]


class ValidatingPolicy:
    def __init__(self, policy: Mapping[str, Any]) -> None:
        spec = policy.get("spec") or {}
        self.name: str = (policy.get("metadata") or {}).get("name", "")
        self.spec = spec
        self.fail = spec.get("failurePolicy", "Fail") != "Ignore"
        self.criteria = MatchCriteria.from_match_resources(spec.get("matchConstraints"))
        self.expressions = PolicyExpressions(spec)
        compile_ = self.expressions.compile
        self.validations = [
            _Validation(
                compile_(str(v.get("expression", ""))),
                str(v.get("message") or ""),
                compile_(v["messageExpression"]) if v.get("messageExpression") else None,
                str(v.get("reason") or INVALID),
            )
            for v in spec.get("validations") or ()
        ]
        self.audit_annotations = [
            (str(a.get("key", "")), compile_(str(a.get("valueExpression", ""))))
            for a in spec.get("auditAnnotations") or ()
        ]

    def _error(self, message: str, index: int = 0) -> Decision:
        return Decision(self.fail, message, INVALID, index)

    def evaluate(self, act: dict[str, Any]) -> Outcome:
        try:
            if not self.expressions.matches(act):
                return Outcome([], [])
        except EvaluationError as err:
            return Outcome([self._error(str(err))], [])
        decisions: list[Decision] = []
        for index, validation in enumerate(self.validations):
            try:
                result = validation.expression.run(act)
            except CostExceeded:
                decisions.append(self._error(OUT_OF_BUDGET, index))
                return Outcome(decisions, [])
            except EvaluationError as err:
                decisions.append(self._error(str(err), index))
                continue
            if result is True:
                decisions.append(Decision(False, index=index))
            elif result is False:
                decisions.append(Decision(True, self._message(validation, act), validation.reason, index))
            else:
                text = validation.expression.text
                decisions.append(self._error(f"expression '{text}' resulted in non-boolean value", index))
        annotations: list[tuple[str, str]] = []
        for key, expression in self.audit_annotations:
            try:
                value = expression.run(act)
            except (EvaluationError, CostExceeded) as err:
                decisions.append(self._error(str(err)))
                continue
            if isinstance(value, str):
                annotations.append((key, value))
            elif value is not None:
                message = f"valueExpression '{expression.text}' resulted in unsupported return type"
                decisions.append(self._error(message))
        return Outcome(decisions, annotations)

    @staticmethod
    def _message(validation: _Validation, act: dict[str, Any]) -> str:
        if validation.message_expression is not None:
            try:
                text = validation.message_expression.run(act)
            except (EvaluationError, CostExceeded):
                text = None
            if isinstance(text, str) and text.strip() and "\n" not in text:
                return text.strip()
        if validation.message:
            return validation.message
        return f"failed expression: {validation.expression.text.strip()}"
