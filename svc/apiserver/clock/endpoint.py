"""`/testing/v1/clock`: read the server's clock, advance a fake one, or follow it as a stream.

- `GET /testing/v1/clock`: `{"clock": "real"|"fake", "now": <seconds since the epoch>, "time": <RFC 3339>}`.
- `GET /testing/v1/clock?watch=true`: the same document as one line at once and again after every
  advance (and at least every second, so a gone follower is noticed); the controller manager under
  `--clock=fake` follows the server's time through it, so one advance moves both.
- `POST /testing/v1/clock/advance?seconds=N`: move a fake clock forward by N seconds (N may have a fraction).

Access is checked by the caller (`svc.apiserver.admin_endpoints`: test endpoints on, system:masters only).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.responses import respond
from svc.machinery import status, wallclock
from svc.machinery.wallclock import FakeWallClock

_HEARTBEAT = 1.0
_TRUE = ("true", "1")


CLOCK_PATH = "/testing/v1/clock"


def is_clock_stream(request: web.Request) -> bool:
    """The follow stream lasts as long as its follower, like a watch: no request deadline ends it
    (under a fake clock one would, at the first advance past it, and the follower would fall behind)."""
    return request.path == CLOCK_PATH and request.query.get("watch", "") in _TRUE


async def serve_clock(ctx: RequestContext, parts: list[str]) -> web.StreamResponse:
    method = ctx.request.method
    if parts == ["clock"] and method in ("GET", "HEAD"):
        if is_clock_stream(ctx.request):
            return await _follow(ctx, _fake(ctx))
        return respond(ctx, 200, orjson.dumps(_describe(ctx.server.clock)), "application/json")
    if parts == ["clock", "advance"] and method == "POST":
        clock = _fake(ctx)
        clock.advance(_seconds(ctx.request.query.get("seconds", "")))
        return respond(ctx, 200, orjson.dumps(_describe(clock)), "application/json")
    raise status.not_found_path()


def _fake(ctx: RequestContext) -> FakeWallClock:
    clock = ctx.server.clock
    if clock is None:
        raise status.bad_request("the server's clock is real: start it with --clock=fake to move or follow it")
    return clock


def _seconds(raw: str) -> float:
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise status.bad_request(f'invalid value of "seconds": {raw!r}, expected a non-negative number of seconds')
    return seconds


def _describe(clock: FakeWallClock | None) -> dict[str, Any]:
    now = wallclock.now() if clock is None else clock.now()
    stamp = datetime.fromtimestamp(now, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    return {"clock": "real" if clock is None else "fake", "now": now, "time": stamp}


async def _follow(ctx: RequestContext, clock: FakeWallClock) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(ctx.request)
    with contextlib.suppress(ConnectionError):
        while not ctx.server.shutting_down:
            shown = _describe(clock)
            await response.write(orjson.dumps(shown) + b"\n")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_HEARTBEAT):
                    await clock.changed(shown["now"])
    return response
