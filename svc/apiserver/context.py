"""The per-request state that filters and handlers share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import web

from svc.apiserver.request_info import RequestInfo
from svc.registry.admission import RequestRecord, UserInfo

if TYPE_CHECKING:
    from svc.apiserver.server import Server


@dataclass
class RequestContext:
    request: web.BaseRequest
    server: Server
    info: RequestInfo | None = None
    user: UserInfo | None = None
    authenticated_user: UserInfo | None = None
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)

    def warn(self, message: str) -> None:
        """Queue an upstream-style `Warning: 299 - "..."` response header item."""
        if message not in self.warnings:
            self.warnings.append(message)

    def admission_record(self) -> RequestRecord:
        """Admission's warnings and audit annotations land in this request's own lists."""
        return RequestRecord(self.warnings, self.audit_annotations)
