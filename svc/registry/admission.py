"""What the registry needs from admission: the attributes of a request and a two-phase check.

The chain itself (plugins, ordering, configuration) lives in `svc/apiserver/admission`; the registry
only calls `admit` (mutating) and `validate` at the points upstream's generic store does.
"""

from __future__ import annotations

import enum
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from svc.api.resources import Resource
from svc.api.sent_empty import NOTHING, Emptied


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


# The warnings list of the request being served (set per request by the HTTP layer): plugins add
# `Warning` header items without the registry having to carry them, as upstream's context does.
request_warnings: ContextVar[list[str] | None] = ContextVar("request_warnings", default=None)
# The audit annotations of the request being served (set by the audit filter when the request is audited):
# what admission records lands in the request's audit event, as upstream's audit context collects it.
request_audit_annotations: ContextVar[dict[str, str] | None] = ContextVar("request_audit_annotations", default=None)

# The user of the create being prepared (set by the registry around a kind's create preparation): a
# certificate signing request records its requester, as upstream's strategy reads the request context.
requesting_user: ContextVar[UserInfo | None] = ContextVar("requesting_user", default=None)


def _audit_annotations() -> dict[str, str]:
    annotations = request_audit_annotations.get()
    return annotations if annotations is not None else {}


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
    options: Any = None  # the request's WriteOptions or DeleteOptions
    annotations: dict[str, str] = field(default_factory=_audit_annotations)
    """Audit annotations admission adds to the request's audit event."""
    reinvocation: Reinvocation = field(default_factory=Reinvocation)
    sent_empty: Emptied = NOTHING
    """The empty lists an update sent that its checks see as null (sent_empty.py): a webhook gets them."""

    @property
    def kind(self) -> str:
        return self.resource.kind

    def warn(self, message: str) -> None:
        """Add a warning to the response of the current request (dropped outside a request)."""
        warnings = request_warnings.get()
        if warnings is not None and message not in warnings:
            warnings.append(message)


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
