"""Refusals of the HTTP layer map to upstream's codes, as Status errors."""

from __future__ import annotations

from aiohttp.http_exceptions import BadHttpMessage, BadHttpMethod, LineTooLong, TransferEncodingError

from svc.apiserver.protocol_errors import protocol_error, raw_response


def test_oversize_lines_and_too_many_headers_are_431() -> None:
    assert protocol_error(400, LineTooLong(b"x", 10)).code == 431
    assert protocol_error(400, BadHttpMessage("Too many headers received")).code == 431


def test_parse_errors_are_400_bad_request_with_the_first_line_of_the_reason() -> None:
    error = protocol_error(400, BadHttpMethod("FOO", "Invalid method encountered:\n\n  b'FOO'\n    ^"))
    assert (error.code, error.reason, error.message) == (400, "BadRequest", "Invalid method encountered")
    assert protocol_error(400, TransferEncodingError("bad chunk")).reason == "BadRequest"
    assert protocol_error(400, None).code == 400


def test_a_handler_that_timed_out_is_504_and_anything_else_500() -> None:
    assert protocol_error(504, None).reason == "Timeout"
    assert protocol_error(500, RuntimeError("boom")).reason == "InternalError"


def test_a_raw_response_is_complete_and_closes_the_connection() -> None:
    data = raw_response(protocol_error(400, LineTooLong(b"x", 10)))
    head, body = data.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert b"Connection: close" in head
    assert f"Content-Length: {len(body)}".encode() in head
    assert body.startswith(b'{"kind":"Status"')
