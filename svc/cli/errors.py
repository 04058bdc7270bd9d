"""Errors of the command-line client: one clear line on stderr and exit code 1, as upstream prints them."""

from __future__ import annotations

from typing import Any


class CliError(Exception):
    """A failure the user can act on; printed as `error: <message>`, after any partial `stdout`."""

    def __init__(self, message: str, *, stdout: str = "") -> None:
        super().__init__(message)
        self.stdout = stdout


class ServerError(CliError):
    """An API error, printed as upstream prints it: `Error from server (<Reason>): <message>`."""

    def __init__(self, status: dict[str, Any], code: int) -> None:
        reason = status.get("reason") or _reason_for(code)
        message = status.get("message") or f"the server responded with the status code {code}"
        super().__init__(f"Error from server ({reason}): {message}")


def _reason_for(code: int) -> str:
    return {
        400: "BadRequest",
        401: "Unauthorized",
        403: "Forbidden",
        404: "NotFound",
        409: "Conflict",
        422: "Invalid",
        500: "InternalError",
        503: "ServiceUnavailable",
        504: "Timeout",
    }.get(code, "Unknown")
