"""Reading a request body with upstream's size limit.

Upstream reads at most `MaxRequestBodyBytes` (3 MiB) of a body and answers 413 past it: twice etcd's
default request limit, since JSON shrinks when stored as Protobuf. The body is read chunk by chunk
and given up on as soon as it passes the limit, so a client cannot make the server hold more than
that in memory, whether it declares a length or streams chunks. A body the transfer encoding breaks
(a bad chunk) is the client's fault: 400 with the parser's reason. (Upstream answers that case with
a 500 carrying Go's reader error; a malformed body is bad input, so it gets the 400 bad input gets.)
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from svc.machinery import status

MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024
BODY_KEY = web.RequestKey("svc.request_body", bytes)
"""Where the body read is kept on the request, so the audit filter can log it once the handler is done."""


def _too_large(limit: int) -> status.StatusError:
    return status.request_entity_too_large(f"limit is {limit}")


async def read_limited(request: web.BaseRequest, limit: int = MAX_REQUEST_BODY_BYTES) -> bytes:
    """The whole body, or 413 once it passes `limit` bytes."""
    declared = request.content_length
    if declared is not None and declared > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    content = request.content
    # A declared length is the end: no further read is spent on learning that the body is over.
    expected = limit + 1 if declared is None else declared
    try:
        while size < expected:
            chunk = await content.readany()
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except HttpProcessingError as error:
        raise status.bad_request(f"error reading the request body: {error.message}") from None
    except ConnectionError:
        # The client went away mid-body; upstream's reader fails the same way. Nobody reads the answer,
        # but it keeps a routine disconnect from being logged as a server fault.
        raise status.unconverted("unexpected EOF") from None
    body = request[BODY_KEY] = b"".join(chunks)
    return body
