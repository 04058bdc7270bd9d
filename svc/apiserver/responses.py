"""Writing responses: objects in the negotiated format, Status errors, and warning headers."""

from __future__ import annotations

import gzip
import re
from typing import Any

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.machinery.status import StatusError
from svc.wire.formats import JSON, Format, encode_json
from svc.wire.negotiation import Negotiated, negotiate

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
"""Go's `unicode.IsControl` (the C0 and C1 controls and DEL) and what is not valid UTF-8 (lone surrogates)."""


def warning_headers(ctx: RequestContext) -> list[tuple[str, str]]:
    """Upstream's `299 - "text"` items; like upstream's header builder, a text with a control
    character (a field name in a body may hold any) is dropped rather than sent, and `\\` and `"`
    are escaped as quoted-string pairs."""
    return [
        ("Warning", '299 - "' + message.replace("\\", "\\\\").replace('"', '\\"') + '"')
        for message in ctx.warnings
        if not _CONTROL.search(message)
    ]


# Upstream compresses only bodies large enough to gain, at gzip's fastest level.
GZIP_THRESHOLD = 128 * 1024
_GZIP_LEVEL = 1


def _accepts_gzip(ctx: RequestContext) -> bool:
    accepted = ctx.request.headers.get("Accept-Encoding", "")
    return any(part.split(";")[0].strip().lower() == "gzip" for part in accepted.split(","))


def _compressible(ctx: RequestContext, body: bytes | bytearray) -> bool:
    """Gzip for get and list only (never watch), behind the APIResponseCompression gate."""
    info = ctx.info
    return (
        len(body) >= GZIP_THRESHOLD
        and info is not None
        and info.verb in ("get", "list")
        and ctx.server.options.feature_gates.enabled("APIResponseCompression")
        and _accepts_gzip(ctx)
    )


# Bodies above this are written in slices of it (see SlicedResponse).
BODY_SLICE = 256 * 1024


class SlicedResponse(web.StreamResponse):
    """A body written to the connection in slices. aiohttp hands a `Response` body to the transport
    in one write; over TLS a write of many megabytes is encrypted and copied as one buffer, which
    measured three times slower than the same bytes in 256 KB slices (a 10,000-object list)."""

    def __init__(self, status: int, body: bytes | bytearray, headers: dict[str, str]) -> None:
        super().__init__(status=status, headers=headers)
        self.content_length = len(body)
        self._unsent = memoryview(body)

    async def write_eof(self, data: bytes = b"") -> None:
        unsent, self._unsent = self._unsent, memoryview(b"")
        for start in range(0, len(unsent), BODY_SLICE):
            await self.write(unsent[start : start + BODY_SLICE])
        await super().write_eof(data)


def respond(ctx: RequestContext, code: int, body: bytes | bytearray, content_type: str) -> web.StreamResponse:
    headers = {"Content-Type": content_type}
    if _compressible(ctx, body):
        body = gzip.compress(body, _GZIP_LEVEL)
        headers["Content-Encoding"] = "gzip"
        headers["Vary"] = "Accept-Encoding"
    response: web.StreamResponse
    # aiohttp's Response leaves out the body of an answer to HEAD (keeping its Content-Length); the
    # sliced writer would send it, and the client would read it as the next answer on the connection.
    if len(body) > BODY_SLICE and ctx.request.method != "HEAD":
        response = SlicedResponse(code, body, headers)
    else:
        response = web.Response(status=code, body=body, headers=headers)
    for name, value in warning_headers(ctx):
        response.headers.add(name, value)
    return response


def object_response(ctx: RequestContext, code: int, obj: Any, negotiated: Negotiated) -> web.StreamResponse:
    encode = negotiated.format.encode
    if negotiated.pretty and negotiated.format.encode_pretty is not None:
        encode = negotiated.format.encode_pretty
    return respond(ctx, code, encode(obj), negotiated.content_type)


def _status_format(ctx: RequestContext) -> Format:
    """As upstream's ErrorNegotiated: the format the Accept header chooses (a Table or metadata view
    does not apply to a Status), JSON when it chooses none."""
    accept = ctx.request.headers.get("Accept", "")
    server = ctx.server
    try:
        return negotiate(
            accept, server.status_formats(), meta_group=server.profile.meta_group, allow_views=False
        ).format
    except StatusError:
        return JSON


def status_response(ctx: RequestContext, error: StatusError) -> web.StreamResponse:
    fmt = _status_format(ctx)
    body = encode_json(error.status()) if fmt is JSON else fmt.encode(error.status())
    response = respond(ctx, error.code, body, fmt.media_type)
    for name, value in error.headers.items():
        response.headers[name] = value
    return response
