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


@dataclass
class RequestRecord:
    """What admission adds to a request besides its verdict: response warnings and audit annotations.

    Plugins reach it through a context variable, as upstream's plugins reach them through the
    request's context, so neither the registry nor the plugins' signatures carry it."""

    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)


_RECORD: ContextVar[RequestRecord | None] = ContextVar("admission_record", default=None)


def begin_request(record: RequestRecord) -> None:
    """Make `record` the one this request's admission writes to (the server calls this per request)."""
    _RECORD.set(record)


def add_warning(message: str) -> None:
    record = _RECORD.get()
    if record is not None and message not in record.warnings:
        record.warnings.append(message)


def add_audit_annotation(key: str, value: str) -> None:
    """Upstream keeps the first value of a key."""
    record = _RECORD.get()
    if record is not None:
        record.audit_annotations.setdefault(key, value)
