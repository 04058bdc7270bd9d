"""API errors and the `Status` body every failure is answered with.

Each constructor mirrors one upstream error kind (`k8s.io/apimachinery/pkg/api/errors`): same HTTP code,
same `reason`, same message wording, same `details`, so clients that branch on reason or parse the
message (kubectl does both) behave as they do against upstream.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol


class _Cause(Protocol):
    def cause(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class GroupResource:
    """A resource qualified by its served group name, as error messages print it (`deployments.apps`)."""

    group: str
    resource: str

    def __str__(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


@dataclass
class StatusError(Exception):
    code: int
    reason: str
    message: str
    details: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
        }
        if self.reason:
            body["reason"] = self.reason
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body


def _details(gr: GroupResource | None, name: str = "", **extra: Any) -> dict[str, Any] | None:
    details: dict[str, Any] = {}
    if name:
        details["name"] = name
    if gr is not None:
        if gr.group:
            details["group"] = gr.group
        details["kind"] = gr.resource
    details.update({key: value for key, value in extra.items() if value})
    return details or None


def not_found(gr: GroupResource, name: str) -> StatusError:
    return StatusError(404, "NotFound", f'{gr} "{name}" not found', _details(gr, name))


def already_exists(gr: GroupResource, name: str) -> StatusError:
    return StatusError(409, "AlreadyExists", f'{gr} "{name}" already exists', _details(gr, name))


def conflict(gr: GroupResource, name: str, why: str) -> StatusError:
    message = f'Operation cannot be fulfilled on {gr} "{name}": {why}'
    return StatusError(409, "Conflict", message, _details(gr, name))


def stale_conflict(gr: GroupResource, name: str) -> StatusError:
    return conflict(
        gr,
        name,
        "the object has been modified; please apply your changes to the latest version and try again",
    )


def invalid(group_kind: str, name: str, errors: Iterable[_Cause], message: str) -> StatusError:
    """422 Invalid; `group_kind` is `Kind` or `Kind.group`, `message` the aggregated field errors."""
    causes = [error.cause() for error in errors]
    group, _, kind = "", "", group_kind
    if "." in group_kind:
        kind, _, group = group_kind.partition(".")
    details: dict[str, Any] = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = kind
    if causes:
        details["causes"] = causes
    return StatusError(422, "Invalid", f'{group_kind} "{name}" is invalid: {message}', details)


def bad_request(message: str) -> StatusError:
    return StatusError(400, "BadRequest", message)


def unauthorized(message: str = "Unauthorized") -> StatusError:
    return StatusError(401, "Unauthorized", message)


def forbidden(gr: GroupResource | None, name: str, why: str) -> StatusError:
    if gr is None:
        return StatusError(403, "Forbidden", f"forbidden: {why}")
    subject = f'{gr} "{name}"' if name else str(gr)
    return StatusError(403, "Forbidden", f"{subject} is forbidden: {why}", _details(gr, name))


def method_not_supported(gr: GroupResource, action: str) -> StatusError:
    return StatusError(405, "MethodNotAllowed", f'{action} is not supported on resources of kind "{gr}"', _details(gr))


def not_acceptable(message: str) -> StatusError:
    return StatusError(406, "NotAcceptable", message)


def unsupported_media_type(accepted: Iterable[str]) -> StatusError:
    message = "the body of the request was in an unknown format - accepted media types include: "
    return StatusError(415, "UnsupportedMediaType", message + ", ".join(accepted))


def gone(message: str) -> StatusError:
    return StatusError(410, "Expired", message)


def request_entity_too_large(message: str) -> StatusError:
    return StatusError(413, "RequestEntityTooLarge", f"Request entity too large: {message}")


def too_many_requests(message: str, retry_after: int) -> StatusError:
    details = {"retryAfterSeconds": retry_after}
    return StatusError(429, "TooManyRequests", message, details, headers={"Retry-After": str(retry_after)})


def internal_error(why: str) -> StatusError:
    return StatusError(500, "InternalError", f"Internal error occurred: {why}", {"causes": [{"message": why}]})


def service_unavailable(message: str) -> StatusError:
    return StatusError(503, "ServiceUnavailable", message)


def too_large_resource_version(requested: int, current: int, retry_after: int) -> StatusError:
    details = {
        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
        "retryAfterSeconds": retry_after,
    }
    message = f"Too large resource version: {requested}, current: {current}"
    return StatusError(504, "Timeout", message, details, headers={"Retry-After": str(retry_after)})


def not_found_path() -> StatusError:
    """The 404 for a path that names no API (upstream's `NotFound` with the default message)."""
    return StatusError(404, "NotFound", "the server could not find the requested resource", {})
