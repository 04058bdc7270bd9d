"""Request metrics: count and latency per verb, resource and code; requests in flight; long-running
requests (watches) while they run. Upstream's label values: verbs upper-case with LIST and WATCH told
apart from GET, APPLY for server-side apply, scope `resource`/`namespace`/`cluster` (empty outside the
resource API)."""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.filters import Handler
from svc.machinery import status

_MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Upstream reports the HTTP method, except that a GET is LIST or WATCH where it is one.
_REPORTED = {"create": "POST", "update": "PUT", "patch": "PATCH", "delete": "DELETE", "deletecollection": "DELETE"}
_LONG_RUNNING = frozenset({"WATCH", "CONNECT"})
_APPLY = "application/apply-patch"
_SIZED = frozenset({"GET", "LIST"})  # upstream records response sizes of reads only


def _labels(ctx: RequestContext) -> tuple[str, ...]:
    request, info = ctx.request, ctx.info
    if info is None or not info.is_resource_request:
        return (request.method.upper(), "", "", "", "", "", "", "apiserver")
    verb = _REPORTED.get(info.verb) or info.verb.upper()
    if verb == "PATCH" and request.headers.get("Content-Type", "").startswith(_APPLY):
        verb = "APPLY"
    scope = "resource" if info.name else "namespace" if info.namespace else "cluster"
    dry_run = "All" if "dryRun" in request.query else ""
    return (verb, dry_run, info.api_group, info.api_version, info.resource, info.subresource, scope, "apiserver")


async def measure(ctx: RequestContext, next_handler: Handler) -> web.StreamResponse:
    metrics = ctx.server.metrics
    labels = _labels(ctx)
    kind = "mutating" if ctx.request.method in _MUTATING else "readOnly"
    inflight = metrics.child(metrics.inflight, (kind,))
    long_running = labels[0] in _LONG_RUNNING
    running = metrics.child(metrics.longrunning, labels[:1] + labels[2:]) if long_running else None
    inflight.inc()
    if running is not None:
        running.inc()
    started = time.perf_counter()
    code = 500
    sent: list[int] = []
    if long_running:
        # A watch or stream the client ends is cancelled after its headers went out: the status it
        # sent is its code, as upstream's response writer records, not the 500 of a failed handler.
        ctx.started_hooks.append(lambda response: sent.append(response.status))
    try:
        response = await next_handler(ctx)
        code = response.status
        if labels[0] in _SIZED:
            body = getattr(response, "body", None)
            size = len(body) if isinstance(body, bytes) else response.body_length
            metrics.child(metrics.response_sizes, labels[:1] + labels[2:]).observe(size)
        return response
    except status.StatusError as error:
        code = error.code
        raise
    except asyncio.CancelledError:
        code = sent[0] if sent else code
        raise
    finally:
        inflight.dec()
        if running is not None:
            running.dec()
        metrics.child(metrics.requests, (*labels, str(code))).inc()
        if not long_running:
            metrics.child(metrics.durations, labels).observe(time.perf_counter() - started)
