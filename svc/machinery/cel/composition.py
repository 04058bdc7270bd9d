"""Named variables for admission policies: `variables.<name>` evaluated lazily, once per request.

A ValidatingAdmissionPolicy's (or MutatingAdmissionPolicy's) `spec.variables` are expressions
that later variables and the validations read as `variables.name`. Upstream compiles each once with
the policy and evaluates it on first use within one admission request, reusing the value (or the
error) after that. The variables' cost counts against the same budget as the expression that first
reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from svc.machinery.cel.environment import Program, environment, new_activation
from svc.machinery.cel.values import CelError, CelType, CompileError, register_type

VARIABLES: Final = "variables"
VARIABLES_TYPE: Final = CelType("kubernetes.variables")


class Variables:
    """The `variables` value of one request: each program runs at most once."""

    __slots__ = ("_act", "_programs", "_results")
    cel_type = VARIABLES_TYPE

    def __init__(self, programs: Mapping[str, Program], act: dict[str, Any]) -> None:
        self._programs = programs
        self._act = act
        self._results: dict[str, tuple[bool, Any]] = {}

    def cel_select(self, name: str) -> Any:
        found = self._results.get(name)
        if found is None:
            program = self._programs.get(name)
            if program is None:
                raise CelError(f"no such key: {name}")
            try:
                found = (True, program.run(self._act))
            except CelError as err:
                found = (False, err)
            self._results[name] = found
        ok, value = found
        if not ok:
            raise value
        return value

    def cel_has(self, name: str) -> bool:
        return name in self._programs


register_type(Variables, VARIABLES_TYPE)


class Composition:
    """A policy's variables and the environment its expressions compile in."""

    def __init__(self, variables: Sequence[tuple[str, str]], declared: Iterable[str]) -> None:
        self.environment = environment(frozenset(declared) | {VARIABLES})
        self.programs: dict[str, Program] = {}
        for name, expression in variables:
            try:
                self.programs[name] = self.environment.compile(expression)
            except CompileError as err:
                raise CompileError(f"variables.{name}: {err}") from err

    def compile(self, expression: str) -> Program:
        return self.environment.compile(expression)

    def activation(self, values: Mapping[str, Any], *, cost_limit: int | None = None) -> dict[str, Any]:
        """One request's activation: its values, a fresh `variables` and one cost budget."""
        act = new_activation(values, cost_limit=cost_limit)
        act[VARIABLES] = Variables(self.programs, act)
        return act
