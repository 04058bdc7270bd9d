"""Graceful termination on SIGTERM, in upstream's order (`genericapiserver` `RunWithContext`):

1. `/readyz` fails at once (its `shutdown` check) so load balancers stop sending; everything else is
   served as usual for `--shutdown-delay-duration`.
2. The delay over, with `--shutdown-send-retry-after` every new request (health probes and
   `/metrics` excepted) is answered 429 with `Retry-After: 5` and `Connection: close` while the
   requests in flight finish, and only then does the listener close; without it the listener closes
   at once and idle keep-alive connections (HTTP/1.1) are closed, HTTP/2 ones get a GOAWAY.
3. Watches are ended cleanly (their streams end as when the server closes them: the client sees a
   complete response and re-watches elsewhere), and are given `--shutdown-watch-termination-grace-period`
   to deliver what they hold; the ones still open after it are cut.
4. Requests still in flight finish (up to `DRAIN_TIMEOUT`, upstream's `ShutdownTimeout`), then
   the server stops its loops and storage.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)

DRAIN_TIMEOUT = 60.0
"""How long requests in flight may take to finish once the listener is closed (upstream's `ShutdownTimeout`)."""
RETRY_AFTER_SECONDS = "5"
MESSAGE = "The apiserver is shutting down, please try again later."
EXEMPT_PREFIXES = ("/readyz", "/livez", "/healthz", "/metrics")


class Draining:
    """The state the retry-after filter reads: whether new requests are refused, and the requests in flight."""

    def __init__(self) -> None:
        self.refusing = False
        self.in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def started(self) -> None:
        self.in_flight += 1
        self._idle.clear()

    def finished(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle.set()

    async def wait_idle(self) -> None:
        await self._idle.wait()


def is_exempt(request: web.BaseRequest, loopback_agent: str) -> bool:
    """Never refused: health probes, metrics scrapes and the server's own loopback requests."""
    return request.path.startswith(EXEMPT_PREFIXES) or request.headers.get("User-Agent", "").startswith(
        loopback_agent + "/"
    )


def retry_after_response() -> web.Response:
    """Go's `http.Error` page with upstream's headers: plain text, 429, try again in 5 seconds, and
    close the connection (on HTTP/2, a GOAWAY)."""
    response = web.Response(
        status=429,
        text=MESSAGE + "\n",
        headers={
            "Content-Type": "text/plain; charset=utf-8",
            "X-Content-Type-Options": "nosniff",
            "Retry-After": RETRY_AFTER_SECONDS,
        },
    )
    response.force_close()
    return response


async def shut_down(server: Server) -> None:
    """Steps 1 to 4 above; `server.stop()` comes after."""
    serving = server.options.serving
    server.shutting_down = True
    log.info("shutdown initiated: /readyz fails, serving for %ss more", serving.shutdown_delay_duration)
    if serving.shutdown_delay_duration:
        await asyncio.sleep(serving.shutdown_delay_duration)
    http_server = server.http_server
    if serving.shutdown_send_retry_after:
        server.draining.refusing = True
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(DRAIN_TIMEOUT):
                await server.draining.wait_idle()
    server.close_listener()
    if http_server is not None:
        http_server.pre_shutdown()  # idle HTTP/1.1 keep-alive connections close, busy ones after their response
        http_server.close_http2()
    await server.watches.end_all(serving.shutdown_watch_termination_grace_period)
    if http_server is not None:
        await http_server.shutdown(DRAIN_TIMEOUT)
        http_server.abort_http2()
