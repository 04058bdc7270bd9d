"""aiohttp's low-level server, telling the server about every connection that closes.

Handler cancellation is off (a write must not stop halfway because its client left), so a handler
that waits a long time without writing, a watch, would otherwise learn that its client has gone only
at its timeout, holding its task and its cache registration until then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler


class NotifyingServer(web.Server):
    def __init__(self, handler: Any, *, on_lost: Callable[[RequestHandler], None], **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self._on_lost = on_lost

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        super().connection_lost(handler, exc)
        self._on_lost(handler)
