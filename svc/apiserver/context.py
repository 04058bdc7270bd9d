"""The per-request state that filters and handlers share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import web

from svc.apiserver.request_info import RequestInfo
from svc.registry.admission import UserInfo, request_warnings

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
    started_hooks: list[Callable[[web.StreamResponse], None]] = field(default_factory=list)
    """Called by a long-running handler just before it sends its headers (audit's ResponseStarted)."""
    audit_annotations: dict[str, str] | None = None
    """The audited request's event annotations (set by the audit filter), where authorization records
    its decision; admission, which has no context, finds them through `request_audit_annotations`."""

    def __post_init__(self) -> None:
        # The request's task serves this context only, so admission's warnings land in this list.
        request_warnings.set(self.warnings)

    def response_started(self, response: web.StreamResponse) -> None:
        """A streaming answer is about to send its headers: filters may add theirs and note the moment."""
        for hook in self.started_hooks:
            hook(response)

    def warn(self, message: str) -> None:
        """Queue an upstream-style `Warning: 299 - "..."` response header item."""
        if message not in self.warnings:
            self.warnings.append(message)
