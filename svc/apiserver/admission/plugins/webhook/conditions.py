"""matchConditions: CEL expressions that must all be true for a webhook to be called.

As upstream's `matchconditions` matcher: any false condition skips the webhook (whatever else
failed); errors without a false one follow the failure policy (Ignore skips the webhook, Fail
rejects the request). Expressions are compiled when the configuration is read; one that does not
compile (validation refuses those, so only a stored relic could) fails like an evaluation error.

The `authorizer` variable needs the server's asynchronous authorizer while CEL evaluates
synchronously; expressions that use it run in a worker thread that asks the event loop (the cost
of a thread only for the webhooks that check authorization).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from svc.api.validation.admission_webhooks import MATCH_CONDITION_VARIABLES
from svc.machinery.cel import CelError, environment
from svc.machinery.cel.environment import Program
from svc.machinery.cel.library.authz import Authorizer, Decide, Request, Verdict, request_resource

RUNTIME_COST_BUDGET = 2_500_000  # upstream's RuntimeCELCostBudgetMatchConditions
AsyncDecide = Callable[[Request], Awaitable[Verdict]]


class ConditionError(Exception):
    """Conditions that could not be evaluated under a Fail policy; `str()` is upstream's text."""


@dataclass(frozen=True)
class _Condition:
    name: str
    expression: str
    program: Program | None
    error: str = ""


def _compile(condition: Mapping[str, Any]) -> _Condition:
    name, expression = str(condition.get("name", "")), str(condition.get("expression", ""))
    try:
        return _Condition(name, expression, environment(MATCH_CONDITION_VARIABLES).compile(expression))
    except CelError as error:
        return _Condition(name, expression, None, f"compilation failed: {error}")


@dataclass(frozen=True)
class ConditionInput:
    """What a webhook's conditions see of one request."""

    object: Any
    old_object: Any
    request: Mapping[str, Any]
    user: str
    groups: tuple[str, ...]
    group: str
    resource: str
    subresource: str
    namespace: str
    name: str


class Conditions:
    def __init__(self, conditions: Sequence[Mapping[str, Any]], *, ignore: bool) -> None:
        self._conditions = [_compile(condition) for condition in conditions]
        self._ignore = ignore
        self._uses_authorizer = any("authorizer" in c.expression for c in self._conditions)

    def __bool__(self) -> bool:
        return bool(self._conditions)

    async def matches(self, facts: ConditionInput, authorize: AsyncDecide | None) -> bool:
        """True when the webhook is to be called; raises ConditionError (Fail policy only)."""
        if not self._uses_authorizer or authorize is None:
            return self._evaluate(facts, None)
        loop = asyncio.get_running_loop()

        def decide(request: Request) -> Verdict:
            return asyncio.run_coroutine_threadsafe(authorize(request), loop).result()

        return await asyncio.to_thread(self._evaluate, facts, decide)

    def _evaluate(self, facts: ConditionInput, decide: Decide | None) -> bool:
        activation: dict[str, Any] = {
            "object": facts.object,
            "oldObject": facts.old_object,
            "request": facts.request,
            "params": None,
        }
        if decide is not None:
            authorizer = Authorizer(facts.user, facts.groups, decide)
            activation["authorizer"] = authorizer
            activation["authorizer.requestResource"] = request_resource(
                authorizer,
                group=facts.group,
                resource=facts.resource,
                subresource=facts.subresource,
                namespace=facts.namespace,
                name=facts.name,
            )
        errors: list[str] = []
        for condition in self._conditions:
            if condition.program is None:
                errors.append(condition.error)
                continue
            try:
                result = condition.program.evaluate(activation, cost_limit=RUNTIME_COST_BUDGET)
            except CelError as error:
                errors.append(f"expression '{condition.expression}' resulted in error: {error}")
                continue
            if result is False:
                return False
            if result is not True:
                errors.append(f"expression '{condition.expression}' resulted in error: no such overload")
        if not errors:
            return True
        if self._ignore:
            return False
        raise ConditionError(errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]")
