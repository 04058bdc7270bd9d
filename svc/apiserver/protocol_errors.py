"""Status bodies for requests refused before any handler runs: malformed HTTP, oversize headers.

Go's server answers these itself (400, or 431 past `MaxHeaderBytes`) and never reaches
kube-apiserver's handlers; we keep its codes but answer with a JSON `Status` like every other
refusal, so a client that parses errors gets one it can parse. `raw_response` is for refusals
made before the parser produced a request to answer (the header budget), written straight to the
transport as Go does.
"""

from __future__ import annotations

from http import HTTPStatus

import orjson
from aiohttp.http_exceptions import BadHttpMessage, HttpProcessingError, LineTooLong

from svc.machinery import status

HEADERS_TOO_LARGE = 431
_TOO_MANY_HEADERS = "Too many headers received"


def headers_too_large() -> status.StatusError:
    # Kubernetes has no reason for 431; like any code it has no name for, the reason stays empty.
    return status.StatusError(HEADERS_TOO_LARGE, "", "Request Header Fields Too Large")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0].rstrip(":") if text.strip() else "malformed HTTP request"


def protocol_error(code: int, exc: BaseException | None) -> status.StatusError:
    """The Status for an error aiohttp's protocol reports with `code` (400 for parse errors)."""
    if isinstance(exc, LineTooLong) or (isinstance(exc, BadHttpMessage) and exc.message == _TOO_MANY_HEADERS):
        return headers_too_large()
    if code == 400:
        return status.bad_request(_first_line(exc.message if isinstance(exc, HttpProcessingError) else ""))
    if code == 504:
        return status.StatusError(504, "Timeout", "request did not complete within the allowed duration")
    return status.internal_error(f"unexpected {type(exc).__name__}: {exc}" if exc else HTTPStatus(code).phrase)


def raw_response(error: status.StatusError) -> bytes:
    """A complete HTTP/1.1 response closing the connection, for refusals outside any request."""
    body = orjson.dumps(error.status())
    head = (
        f"HTTP/1.1 {error.code} {HTTPStatus(error.code).phrase}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body
