"""The request filter: priority and fairness, or the plain in-flight limits when it is off.

It runs after impersonation and before authorization, as upstream's, so requests are classified by
the user they act as. Under APF a request is classified, gets the `X-<brand>-PF-FlowSchema-UID` and
`-PriorityLevel-UID` headers, and then runs (exempt level), or waits in its level's queues for at
most a quarter of its deadline (15 s for a watch, never over a minute), or is refused: 429 with
upstream's plain-text body and `Retry-After`. A watch holds its seats only until its response starts
(its initial events are sent); other long-running requests (exec, attach, logs, proxy) bypass the
filter, as upstream's.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.apiserver.flowcontrol.build import FlowControl
from svc.apiserver.flowcontrol.controller import Level
from svc.apiserver.flowcontrol.max_inflight import MUTATING_VERBS
from svc.apiserver.flowcontrol.metrics import FlowSeries
from svc.apiserver.flowcontrol.queueset import Outcome, QueueSet, Request
from svc.apiserver.flowcontrol.routes import Route
from svc.apiserver.flowcontrol.width import seats
from svc.apiserver.request_info import RequestInfo
from svc.machinery import status

TOO_MANY_REQUESTS = "Too many requests, please try again later.\n"
_LONG_RUNNING_VERBS = frozenset({"watch", "proxy"})
_LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
DEFAULT_WAIT = 15.0
MAX_WAIT = 60.0


def long_running(info: RequestInfo) -> bool:
    return info.verb in _LONG_RUNNING_VERBS or (
        info.is_resource_request and info.subresource in _LONG_RUNNING_SUBRESOURCES
    )


def too_many_requests(retry_after: int, headers: dict[str, str] | None = None) -> web.Response:
    response = web.Response(status=429, text=TOO_MANY_REQUESTS, content_type="text/plain", charset="utf-8")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Retry-After"] = str(retry_after)
    response.headers.update(headers or {})
    return response


def limit_requests(ctx: RequestContext, next_handler: Handler) -> Awaitable[web.StreamResponse]:
    """The request's way through: a plain function handing over the coroutine of the path taken, so
    the chain has no frame of this filter's own to pass through every time the request resumes."""
    control = ctx.server.flowcontrol
    info = ctx.info
    assert info is not None
    if control is None or (long_running(info) and info.verb != "watch"):
        return next_handler(ctx)
    if control.controller is None:
        return _max_in_flight(ctx, next_handler, control)
    return _priority_and_fairness(ctx, next_handler, control)


async def _max_in_flight(ctx: RequestContext, next_handler: Handler, control: FlowControl) -> web.StreamResponse:
    info, user = ctx.info, ctx.user
    assert info is not None and user is not None
    if info.verb == "watch":
        return await next_handler(ctx)
    mutating = info.verb in MUTATING_VERBS
    if not control.max_in_flight.try_acquire(mutating):
        if "system:masters" in user.groups:
            return await next_handler(ctx)
        return too_many_requests(1)
    try:
        await asyncio.sleep(0)  # counted for one turn of the loop at least, see `_let_arrivals_in`
        return await next_handler(ctx)
    finally:
        control.max_in_flight.release(mutating)


def _wait_limit(ctx: RequestContext, info: RequestInfo) -> float:
    if info.verb == "watch":
        return DEFAULT_WAIT
    return min(ctx.server.options.request_timeout / 4, MAX_WAIT)


async def _priority_and_fairness(
    ctx: RequestContext, next_handler: Handler, control: FlowControl
) -> web.StreamResponse:
    """Classify, take seats (or wait for them, or be refused), run the rest of the chain, give the
    seats back.

    The common case (a limited level with seats free and nobody waiting, not a watch) takes its
    seats in one synchronous step and keeps what it needs to give them back in locals: no request
    record, no future, no extra coroutine."""
    info, user = ctx.info, ctx.user
    assert info is not None and user is not None and control.controller is not None
    route = control.routes.route(control.controller.config, user, info)
    if route is None:  # only while the configuration is being replaced: serve rather than refuse
        return await next_handler(ctx)
    queueset = route.level.queueset
    verb = info.verb
    if queueset is None or verb == "watch":
        return await _admit_and_run(ctx, next_handler, control, route)
    width = seats(ctx.server, ctx.request, info, route.level.max_seats) if verb == "list" else 1
    running = queueset.start_at_once(route.flow, width)
    if running is None:
        return await _admit_and_run(ctx, next_handler, control, route, width)
    queue, started = running
    series = route.series
    series.at_once += 1
    series.executing += 1
    series.executing_seats += width
    try:
        await asyncio.sleep(0)  # see `_let_arrivals_in`
        response = await next_handler(ctx)
    except status.StatusError as error:
        error.headers.update(route.headers)
        raise
    finally:
        series.executing -= 1
        series.executing_seats -= width
        queueset.end(queue, width, started)
    route.set_headers(response)
    return response


async def _admit_and_run(
    ctx: RequestContext, next_handler: Handler, control: FlowControl, route: Route, width: int = 0
) -> web.StreamResponse:
    """Every other case: the exempt level, watches, and requests that must queue or be refused."""
    info, user = ctx.info, ctx.user
    assert info is not None and user is not None
    watch = info.verb == "watch"
    if watch:  # the one request that sends its headers before its handler returns
        ctx.started_hooks.append(route.set_headers)
    level, series = route.level, route.series
    queueset = level.queueset
    release: Callable[[], None]
    if queueset is None:
        release = functools.partial(_leave_exempt, level, series)
        level.executing += 1
        level.dispatched += 1
        series.ran(0.0)
        series.executing += 1
    else:
        width = width or seats(ctx.server, ctx.request, info, level.max_seats)
        request = Request(route.schema.name, route.distinguisher, route.flow, width, time.monotonic())
        outcome = queueset.offer(request)
        waited = 0.0
        if outcome is None:
            request.description = (user.name, info.verb, info.path)
            outcome = await _wait(ctx, info, queueset, request, series)
            waited = time.monotonic() - request.arrived
        elif outcome is Outcome.DISPATCHED:
            await _let_arrivals_in(queueset, request)
        if outcome is not Outcome.DISPATCHED:
            return _refuse(control, route, outcome, waited)
        series.ran(waited)
        series.executing += 1
        series.executing_seats += request.width
        release = _Seats(queueset, request, series)
        if watch:  # a watch holds its seats only until its response starts
            ctx.started_hooks.append(release)
    try:
        response = await next_handler(ctx)
    except status.StatusError as error:
        error.headers.update(route.headers)
        raise
    finally:
        release()
    route.set_headers(response)
    return response


def _refuse(control: FlowControl, route: Route, outcome: Outcome, waited: float) -> web.Response:
    series, level = route.series, route.level.name
    series.waited_then_refused.observe(waited)
    series.rejected(outcome.value).inc()
    control.retry_after.record(level)
    return too_many_requests(control.retry_after.seconds(level), route.headers)


async def _wait(
    ctx: RequestContext, info: RequestInfo, queueset: QueueSet, request: Request, series: FlowSeries
) -> Outcome:
    assert request.waiter is not None
    series.inqueue += 1
    try:
        async with asyncio.timeout(_wait_limit(ctx, info)):
            await asyncio.shield(request.waiter)
        return Outcome.DISPATCHED
    except TimeoutError:
        return Outcome.TIME_OUT if queueset.withdraw(request, timed_out=True) else Outcome.DISPATCHED
    except asyncio.CancelledError:
        if not queueset.withdraw(request, timed_out=False):
            queueset.finish(request)
        raise
    finally:
        series.inqueue -= 1


class _Seats:
    """The seats a running request holds; called when it ends (or a watch has started), once."""

    __slots__ = ("queueset", "released", "request", "series")

    def __init__(self, queueset: QueueSet, request: Request, series: FlowSeries) -> None:
        self.queueset = queueset
        self.request = request
        self.series = series
        self.released = False

    def __call__(self, _: web.StreamResponse | None = None) -> None:
        if self.released:
            return
        self.released = True
        self.series.executing -= 1
        self.series.executing_seats -= self.request.width
        self.queueset.finish(self.request)


async def _let_arrivals_in(queueset: QueueSet, request: Request) -> None:
    """Hold the seats for one turn of the event loop before running.

    One process serves every request on one thread: a handler that never awaits (a LIST from the
    watch cache) would take its seats and give them back within one step, so seats would never be
    seen taken and a flood would never queue; its requests would instead wait in the event loop's
    own first-come queue, ahead of everyone else's. Yielding once lets the requests that arrived
    together be admitted (or queued, or refused) before any of them runs, as concurrent arrivals
    are in upstream's threaded server. (Giving the seats back a turn later instead, by a callback,
    measured dearer on the server: it adds a pass of the event loop after the response.)
    """
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        queueset.finish(request)
        raise


def _leave_exempt(level: Level, series: FlowSeries) -> None:
    level.executing -= 1
    series.executing -= 1
