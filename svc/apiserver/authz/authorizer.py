"""The authorizer protocol: one method deciding one request, and the ordered union of authorizers.

An authorizer that cannot decide (a webhook unreachable, a match condition failing) raises
`AuthorizerError` carrying the decision its failure policy gives. The union keeps going past a
no-opinion failure, as upstream's does; the request filter answers 500 when the chain ends without
allowing and some authorizer failed (upstream `WithAuthorization`: allow first, then error, then 403).
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from svc.machinery.fields import FieldRequirement
from svc.machinery.labels import Requirement
from svc.registry.admission import UserInfo


class Decision(enum.Enum):
    ALLOW = "allow"
    DENY = "deny"
    NO_OPINION = "no opinion"


@dataclass(frozen=True)
class Attributes:
    user: UserInfo
    verb: str
    is_resource_request: bool
    path: str = ""
    namespace: str = ""
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    field_requirements: tuple[FieldRequirement, ...] = ()
    """The list's field selector, for authorizers that allow a list only when it is narrowed (Node)."""
    label_requirements: tuple[Requirement, ...] = ()
    """The list's label selector, passed on to webhooks as upstream's AuthorizeWithSelectors does."""


@runtime_checkable
class Authorizer(Protocol):
    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]: ...


class AuthorizerError(Exception):
    """An authorizer could not decide; `decision` is what its failure policy makes of that."""

    def __init__(self, message: str, decision: Decision = Decision.NO_OPINION) -> None:
        super().__init__(message)
        self.decision = decision


@dataclass(frozen=True)
class Verdict:
    """The chain's answer with upstream's third part: the error of authorizers that failed."""

    decision: Decision
    reason: str
    error: str = ""


@runtime_checkable
class AuthorizerChain(Protocol):
    """What requests ask: the 2-tuple answer, and the verdict that keeps errors apart."""

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]: ...

    async def decide(self, attributes: Attributes) -> Verdict: ...


Recorder = Callable[[int, Decision], None]
"""Told the position in the chain and the decision of each authorizer that decided (metrics)."""

AuthorizerFunc = Callable[[Attributes], Awaitable[tuple[Decision, str]]]


def aggregate_errors(errors: list[str]) -> str:
    """Upstream's aggregate error text: one error as itself, several as `[a, b]` (repeats once)."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else f"[{', '.join(unique)}]" if unique else ""


class Union:
    """The first authorizer with an opinion decides; reasons of the others are kept for the message."""

    def __init__(self, authorizers: list[Authorizer | AuthorizerFunc], recorder: Recorder | None = None) -> None:
        self._authorizers = [a.authorize if isinstance(a, Authorizer) else a for a in authorizers]
        self._recorder = recorder

    async def decide(self, attributes: Attributes) -> Verdict:
        reasons: list[str] = []
        errors: list[str] = []
        for position, authorize in enumerate(self._authorizers):
            error = ""
            try:
                decision, reason = await authorize(attributes)
            except AuthorizerError as failure:
                decision, reason, error = failure.decision, "", str(failure)
                errors.append(error)
            if reason:
                reasons.append(reason)
            if decision is not Decision.NO_OPINION:
                if self._recorder is not None:
                    self._recorder(position, decision)
                return Verdict(decision, reason, error)
        return Verdict(Decision.NO_OPINION, "\n".join(reasons), aggregate_errors(errors))

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]:
        """For checks that only need yes or no (impersonation, escalation): an error is part of the reason."""
        verdict = await self.decide(attributes)
        return verdict.decision, "\n".join(part for part in (verdict.reason, verdict.error) if part)
