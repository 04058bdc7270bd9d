"""Compiling an admission policy's CEL when the policy is written, as upstream's validation does:
every matchCondition, variable, validation, messageExpression and audit annotation must compile in
the policy environment and have the type its field needs; failures are field errors on the
expression (`compilation failed: ERROR: <input>:1:25: ...`, `must evaluate to bool`). A `dyn`
result passes the type check (this checker types fewer overloads than cel-go, so `dyn` here may be
a precise type there; refusing it would refuse policies upstream accepts).

The variables every policy expression may read are declared here, the lowest layer that needs them;
the admission plugins evaluate with the same names. `params` is declared only for a policy with a
`paramKind`; `variables` is typed field by field from the variables declared before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from svc.machinery.cel import types
from svc.machinery.cel.checker import check_expression
from svc.machinery.cel.environment import environment
from svc.machinery.cel.types import Type
from svc.machinery.cel.values import CelError
from svc.machinery.field_errors import FieldError, invalid

BASE_VARIABLES: Final = (
    "object",
    "oldObject",
    "request",
    "namespaceObject",
    "authorizer",
    "authorizer.requestResource",
)
PARAMS: Final = "params"
VARIABLES: Final = "variables"
BOOL: Final = (types.BOOL,)
STRING: Final = (types.STRING,)
STRING_OR_NULL: Final = (types.STRING, types.NULL)


class PolicyChecker:
    """Checks a policy's expressions in order, typing `variables.<name>` as it goes."""

    def __init__(self, spec: Mapping[str, Any], types_: Sequence[str] = ()) -> None:
        names = (*BASE_VARIABLES, PARAMS) if spec.get("paramKind") else BASE_VARIABLES
        names = (*names, *types_)
        self._environment = environment(frozenset((*names, VARIABLES)))
        self._declarations: dict[str, Type] = dict.fromkeys(names, types.DYN)
        self._variables: dict[str, Type] = {}
        self._declarations[VARIABLES] = types.object_type(VARIABLES, self._variables)

    def check(self, expression: str, path: str, returns: Sequence[Type] = ()) -> tuple[list[FieldError], Type]:
        """Errors of `expression` at `path` and its type (dyn when it does not compile)."""
        try:
            self._environment.compile(expression)
            found = check_expression(expression, self._declarations).result
        except CelError as err:
            return [invalid(path, expression, f"compilation failed: {err}")], types.DYN
        if returns and found not in returns and found != types.DYN:
            wanted = str(returns[0]) if len(returns) == 1 else "one of [" + " ".join(map(str, returns)) + "]"
            return [invalid(path, expression, f"must evaluate to {wanted}")], found
        return [], found

    def declare_variable(self, name: str, expression: str, path: str) -> list[FieldError]:
        errors, found = self.check(expression, path)
        self._variables[name] = found
        self._declarations[VARIABLES] = types.object_type(VARIABLES, self._variables)
        return errors


def _entries(spec: Mapping[str, Any], key: str) -> Iterable[tuple[int, Mapping[str, Any]]]:
    return ((i, e) for i, e in enumerate(spec.get(key) or ()) if isinstance(e, Mapping))


def _text(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key)
    return value if isinstance(value, str) else ""


def common_expression_errors(spec: Mapping[str, Any], checker: PolicyChecker) -> list[FieldError]:
    """matchConditions and variables, which validating and mutating policies share."""
    errors: list[FieldError] = []
    for index, condition in _entries(spec, "matchConditions"):
        expression = _text(condition, "expression").strip()
        if expression:
            errors += checker.check(expression, f"spec.matchConditions[{index}].expression", BOOL)[0]
    for index, variable in _entries(spec, "variables"):
        name, expression = _text(variable, "name").strip(), _text(variable, "expression")
        if name and expression.strip():
            errors += checker.declare_variable(name, expression, f"spec.variables[{index}].expression")
    return errors


def validating_expression_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    checker = PolicyChecker(spec)
    errors = common_expression_errors(spec, checker)
    for index, validation in _entries(spec, "validations"):
        path = f"spec.validations[{index}]"
        if _text(validation, "expression").strip():
            errors += checker.check(_text(validation, "expression"), f"{path}.expression", BOOL)[0]
        if _text(validation, "messageExpression").strip():
            errors += checker.check(_text(validation, "messageExpression"), f"{path}.messageExpression", STRING)[0]
    for index, annotation in _entries(spec, "auditAnnotations"):
        expression = _text(annotation, "valueExpression")
        if expression.strip():
            path = f"spec.auditAnnotations[{index}].valueExpression"
            errors += checker.check(expression, path, STRING_OR_NULL)[0]
    return errors


MUTATION_TYPES: Final = ("Object", "JSONPatch")
_MUTATION_RESULTS: Final = {
    "applyConfiguration": (Type("Object"),),
    "jsonPatch": (types.list_of(Type("JSONPatch")),),
}


def mutating_expression_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    """A mutating policy's expressions: `Object{...}` and `JSONPatch{...}` are constructible."""
    checker = PolicyChecker(spec, MUTATION_TYPES)
    errors = common_expression_errors(spec, checker)
    for index, mutation in _entries(spec, "mutations"):
        for key, returns in _MUTATION_RESULTS.items():
            source = mutation.get(key)
            expression = _text(source, "expression") if isinstance(source, Mapping) else ""
            if expression.strip():
                errors += checker.check(expression, f"spec.mutations[{index}].{key}.expression", returns)[0]
    return errors
