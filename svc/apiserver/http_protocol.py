"""aiohttp's connection protocol with the limits upstream's Go server puts on request headers.

Go's `http.Server` as kube-apiserver configures it: headers (request line included) up to
`MaxHeaderBytes` (1 MiB, plus Go's 4 KiB of slack) else 431; a request's headers must be complete
within `ReadHeaderTimeout` (32 s) of the connection opening or of its first byte after an idle
keep-alive, else the connection is closed without an answer; an idle keep-alive connection is closed
after `IdleTimeout` (90 s). aiohttp instead limits each line to 8 KiB and has no header deadline,
so this subclass raises the parser's per-line limits to the whole budget and adds the rest:

- the header clock and the byte count run from the start of a request until the parser hands over
  its headers; a connection streaming a watch response is past them and stays open;
- while a connection waits for headers it is in `PendingConnections`, which bounds how many do;
- every refusal made here or by aiohttp's parser is a JSON `Status` (see `protocol_errors`), never
  aiohttp's plain-text page, and is logged at debug level, not as a traceback;
- a broken chunked body is handed to the request reading it, so its handler answers 400.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import orjson
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler, _ErrInfo

from svc.apiserver.audit.answer_gate import AnswerGate
from svc.apiserver.pending_connections import PendingConnections
from svc.apiserver.protocol_errors import headers_too_large, protocol_error, raw_response
from svc.apiserver.serving_limits import ServingLimits

log = logging.getLogger(__name__)

# Go lets a request's headers run this much past MaxHeaderBytes before it refuses them.
_HEADER_SLACK = 4096
# aiohttp counts headers as well as bytes; Go only counts bytes, so the count is set where only the
# byte budget can bind: the shortest header line, "a:\r\n", is 4 bytes.
_SHORTEST_HEADER = 4


def header_size(message: RawRequestMessage) -> int:
    """Bytes of the request line and headers as sent (give or take optional whitespace)."""
    line = len(message.method) + len(message.path) + len("  HTTP/1.1\r\n")
    return line + sum(len(name) + len(value) + 4 for name, value in message.raw_headers) + 2


class ApiRequestHandler(RequestHandler):
    __slots__ = ("_answer_gate", "_header_bytes", "_header_deadline", "_last_body", "_limits", "_pending")

    def __init__(
        self,
        manager: Any,
        *,
        limits: ServingLimits,
        pending: PendingConnections,
        answer_gate: AnswerGate | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            manager,
            keepalive_timeout=limits.idle_timeout,
            max_line_size=limits.max_header_bytes,
            max_field_size=limits.max_header_bytes,
            max_headers=limits.max_header_bytes // _SHORTEST_HEADER,
            **kwargs,
        )
        self._limits = limits
        self._pending = pending
        self._answer_gate = answer_gate
        """Set while the audit log writes once a loop turn: this connection's answers wait for it."""
        self._header_bytes = 0
        self._header_deadline: asyncio.TimerHandle | None = None
        self._last_body: StreamReader | None = None

    # -- the header phase ----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self._answer_gate is not None:
            self.transport = self._answer_gate.wrap(transport)  # type: ignore[assignment]
        self._await_headers()

    def connection_lost(self, exc: BaseException | None) -> None:
        self._headers_over()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self._header_bytes = 0
        self._header_deadline = self._loop.call_later(self._limits.header_timeout, self._headers_too_slow)
        self._pending.add(self)

    def _headers_over(self) -> None:
        self._header_bytes = 0
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None
        self._pending.discard(self)

    def _between_requests(self) -> bool:
        """Bytes arriving now start a new request: the last one's body is in and it has been answered.
        (Go, too, reads the next request only after answering the current one.)"""
        body_done = self._last_body is None or self._last_body.is_eof()
        return body_done and not self._messages and not self._request_in_progress

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        log.debug("closing a connection whose request headers took longer than %ss", self._limits.header_timeout)
        self.shed()

    def shed(self) -> None:
        self._headers_over()
        self.force_close()

    def data_received(self, data: bytes) -> None:
        # A request that arrives whole in one read (the usual case) never starts the header clock.
        starts_request = (
            self._header_deadline is None
            and data
            and self._between_requests()
            and not (self._force_close or self._close)
        )
        parsed = self._request_count
        received = self._header_bytes + len(data)
        super().data_received(data)
        if self._request_count != parsed:
            self._headers_over()
            self._last_body = self._messages[-1][1] if self._messages else None
            if received > self._limits.max_header_bytes + _HEADER_SLACK:
                self._refuse_oversize_messages(self._request_count - parsed)
            self._hand_body_error_to_request()
            return
        if starts_request:
            self._await_headers()
        if self._header_deadline is not None:
            self._header_bytes += len(data)
            if self._header_bytes > self._limits.max_header_bytes + _HEADER_SLACK:
                self._refuse_headers()

    def _refuse_headers(self) -> None:
        self._headers_over()
        if self.transport is not None:
            self.transport.write(raw_response(headers_too_large()))
        self.force_close()

    def _refuse_oversize_messages(self, count: int) -> None:
        """Headers that completed in a read that took the byte count past the budget are measured
        once parsed; too large, they are answered 431 in their turn instead of being handled."""
        budget = self._limits.max_header_bytes + _HEADER_SLACK
        for index in range(len(self._messages) - count, len(self._messages)):
            message, body = self._messages[index]
            if isinstance(message, RawRequestMessage) and header_size(message) > budget:
                oversize = LineTooLong(b"request headers", budget)
                self._messages[index] = (_ErrInfo(status=431, exc=oversize, message=oversize.message), body)

    def _hand_body_error_to_request(self) -> None:
        """A parse error while a request's body is still being read is that body's error."""
        request = self._current_request
        if request is None or request.content.is_eof() or not self._messages:
            return
        message, _ = self._messages[-1]
        if isinstance(message, RawRequestMessage):
            return
        self._messages.pop()
        exc = getattr(message, "exc", None)
        request.content.set_exception(exc if isinstance(exc, HttpProcessingError) else ConnectionResetError())
        self.close()

    # -- refusals ------------------------------------------------------------------------------
    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        error = protocol_error(status, exc)
        if error.code == 500:
            log.error("error serving %s", request.remote, exc_info=exc)
        else:
            log.debug("refused a request from %s: %s", request.remote, exc)
        if request.writer.output_size > 0:
            raise ConnectionError("a response was already started; the connection is closed instead")
        response = web.Response(status=error.code, body=orjson.dumps(error.status()), content_type="application/json")
        response.force_close()
        return response
