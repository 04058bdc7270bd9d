"""The authorizer protocol: one method deciding one request, and the ordered union of authorizers."""

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


AuthorizerFunc = Callable[[Attributes], Awaitable[tuple[Decision, str]]]


class Union:
    """The first authorizer with an opinion decides; reasons of the others are kept for the message."""

    def __init__(self, authorizers: list[Authorizer | AuthorizerFunc]) -> None:
        self._authorizers = [a.authorize if isinstance(a, Authorizer) else a for a in authorizers]

    async def authorize(self, attributes: Attributes) -> tuple[Decision, str]:
        reasons: list[str] = []
        for authorize in self._authorizers:
            decision, reason = await authorize(attributes)
            if decision is not Decision.NO_OPINION:
                return decision, reason
            if reason:
                reasons.append(reason)
        return Decision.NO_OPINION, "\n".join(reasons)
