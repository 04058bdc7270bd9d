"""What the registry needs from admission: the attributes of a request and a two-phase check.

The chain itself (plugins, ordering, configuration) lives in `svc/apiserver/admission`; the registry
only calls `admit` (mutating) and `validate` at the points upstream's generic store does.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Protocol

from svc.api.resources import Resource


class Operation(enum.Enum):
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    CONNECT = "CONNECT"


@dataclass(frozen=True)
class UserInfo:
    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class Reinvocation:
    """Upstream's reinvocation context: a mutating plugin that changed the object asks for a second
    pass of the mutating chain (`should_reinvoke`); plugins keep their own state in `values`."""

    is_reinvoke: bool = False
    should_reinvoke: bool = False
    values: dict[str, Any] = field(default_factory=dict)


@dataclass
class Attributes:
    operation: Operation
    resource: Resource
    namespace: str
    name: str
    user: UserInfo
    subresource: str = ""
    dry_run: bool = False
    object: dict[str, Any] | None = None
    old_object: dict[str, Any] | None = None
    options: dict[str, Any] | None = None
    """The request's CreateOptions, UpdateOptions or DeleteOptions, as webhooks receive them."""
    warnings: list[str] = field(default_factory=list)
    """Warnings for the client (`Warning` response headers)."""
    annotations: dict[str, str] = field(default_factory=dict)
    """Audit annotations admission adds to the request's audit event."""
    reinvocation: Reinvocation = field(default_factory=Reinvocation)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


class Admission(Protocol):
    async def admit(self, attributes: Attributes) -> None:
        """Mutating phase: may change `attributes.object`; raises StatusError to reject."""
        ...

    async def validate(self, attributes: Attributes) -> None:
        """Validating phase: raises StatusError to reject."""
        ...


class NoAdmission:
    async def admit(self, attributes: Attributes) -> None:
        return None

    async def validate(self, attributes: Attributes) -> None:
        return None
