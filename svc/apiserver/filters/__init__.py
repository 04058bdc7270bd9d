"""Request filters: each wraps the next handler and does one thing (see `svc.apiserver.chain`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from svc.apiserver.context import RequestContext

Handler = Callable[[RequestContext], Awaitable[web.StreamResponse]]
Filter = Callable[[RequestContext, Handler], Awaitable[web.StreamResponse]]
