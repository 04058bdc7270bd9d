"""The one CEL environment every rule-evaluating feature shares: compile once, evaluate many.

`Environment` holds the declared variable names and the function table (the standard library,
the extensions Kubernetes enables and its own libraries). `compile()` parses and compiles an
expression into a `Program`, cached by expression and declared variables so that a CRD's rules or
a policy's validations compile once however often objects arrive. `Program.evaluate()` runs with an
activation of plain Python values (the objects' own dicts) and an optional runtime cost limit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from svc.machinery.cel import library, stdlib
from svc.machinery.cel.access import COST, Closure
from svc.machinery.cel.compiler import Compiler
from svc.machinery.cel.cost import Cost
from svc.machinery.cel.parser import parse_with_positions
from svc.machinery.cel.values import CelError

PROGRAM_CACHE_SIZE = 4096


@dataclass(frozen=True)
class Program:
    """A compiled expression; immutable and safe to share between requests."""

    expression: str
    closure: Closure = field(repr=False)

    def evaluate(self, activation: Mapping[str, Any], *, cost_limit: int | None = None) -> Any:
        """Run with the given variables; raises `CelError` with upstream's message on failure."""
        return self.evaluate_with_cost(activation, cost_limit=cost_limit)[0]

    def evaluate_with_cost(self, activation: Mapping[str, Any], *, cost_limit: int | None = None) -> tuple[Any, int]:
        """The result and the runtime cost it took (upstream reports it in audit annotations)."""
        act = new_activation(activation, cost_limit=cost_limit)
        return self.run(act), act[COST].used

    def run(self, act: dict[str, Any]) -> Any:
        """Evaluate on an activation from `new_activation`, adding to the budget it carries, so that
        several expressions of one request (a policy's validations and variables) share one budget."""
        try:
            result = self.closure(act)
        except RecursionError as err:
            raise CelError("max recursion depth exceeded") from err
        act[COST].charge(0)
        return result


def new_activation(values: Mapping[str, Any], *, cost_limit: int | None = None) -> dict[str, Any]:
    """The variables of one evaluation plus the cost budget it runs under."""
    act = dict(values)
    act[COST] = Cost(cost_limit)
    return act


class Environment:
    """Declared variables plus functions; `compile` results are cached per environment."""

    def __init__(
        self,
        variables: Iterable[str] = (),
        *,
        functions: Mapping[str, Callable[..., Any]] | None = None,
        strict: bool = True,
    ) -> None:
        self.strict = strict
        self.variables = frozenset(variables)
        self.functions = library.overloads(stdlib.FUNCTIONS, library.FUNCTIONS, functions or {})
        self.compile = functools.lru_cache(maxsize=PROGRAM_CACHE_SIZE)(self._compile)

    def _compile(self, expression: str) -> Program:
        parsed = parse_with_positions(expression)
        compiler = Compiler(self.variables, self.functions, strict=self.strict, parsed=parsed)
        return Program(expression, compiler.compile(parsed.root))

    def extend(self, variables: Iterable[str]) -> Environment:
        """An environment with more variables (a rule's `self`/`oldSelf`, a policy's `variables`)."""
        return environment(self.variables | frozenset(variables))


@functools.lru_cache(maxsize=256)
def environment(variables: frozenset[str]) -> Environment:
    """The shared environment for a set of declared variables: its program cache is shared too."""
    return Environment(variables)
