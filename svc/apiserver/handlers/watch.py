"""GET of a collection with `watch`: a chunked stream of watch events, one document per event."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

from aiohttp import web

from svc.apiserver.handlers import list as listing
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.registry.store import WatchEvent
from svc.wire.negotiation import Negotiated, View


def _boolean_param(scope: Scope, name: str) -> bool | None:
    if name not in scope.query:
        return None
    return scope.query[name].lower() in ("1", "true", "t", "")


def _timeout(scope: Scope) -> float:
    text = scope.query.get("timeoutSeconds", "")
    if text:
        try:
            seconds = int(text)
        except ValueError:
            raise status.bad_request(f'timeoutSeconds: Invalid value: "{text}": must be an integer') from None
        if seconds > 0:
            return float(seconds)
    minimum = scope.server.options.min_request_timeout
    return minimum * (1 + random.random())


def _validate(scope: Scope, send_initial: bool | None) -> None:
    match = scope.query.get("resourceVersionMatch", "")
    problems = []
    if send_initial is not None and match != "NotOlderThan":
        problems.append(
            "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
        )
    if match:
        if send_initial is None:
            problems.append(
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless "
                "sendInitialEvents is provided"
            )
        if match != "NotOlderThan":
            problems.append(f'resourceVersionMatch: Unsupported value: "{match}": supported values: "NotOlderThan"')
    if problems:
        raise listing.invalid_list_options(problems)


class _Encoder:
    """Frames events in the negotiated format and view; a full object's encoding is shared by every
    watcher of the event (cached on the event, per format and served version)."""

    def __init__(self, scope: Scope, negotiated: Negotiated) -> None:
        self.scope = scope
        self.negotiated = negotiated
        self.first_table = True

    def frame(self, event: WatchEvent) -> bytes:
        negotiated = self.negotiated
        fmt = negotiated.format
        assert fmt.watch_frame is not None
        if event.type in ("ERROR", "BOOKMARK") or negotiated.view is View.FULL:
            obj = event.object
        else:
            obj = self.scope.render(event.object, negotiated, is_list=False)
            if negotiated.view is View.TABLE:
                if not self.first_table:
                    obj["columnDefinitions"] = []
                self.first_table = False
        if event.source is not None and obj is event.object:
            cache_key = (fmt.media_type, obj["apiVersion"])
            encoded = event.source.encode(cache_key, lambda: fmt.encode(obj))
        else:
            encoded = fmt.encode(obj)
        return fmt.watch_frame(event.type, encoded)


async def watch(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate()
    if negotiated.format.watch_frame is None:
        streams = [f.stream_media_type for f in scope.formats() if f.watch_frame is not None]
        raise status.not_acceptable("only the following media types are accepted: " + ", ".join(streams))
    options = listing.list_options(scope)
    send_initial = _boolean_param(scope, "sendInitialEvents")
    _validate(scope, send_initial)
    bookmarks = bool(_boolean_param(scope, "allowWatchBookmarks"))
    timeout = _timeout(scope)
    events = scope.store.watch(scope.namespace, options, initial=send_initial)
    content_type = negotiated.format.stream_media_type
    response = web.StreamResponse(status=200, headers={"Content-Type": content_type})
    response.enable_chunked_encoding()
    await response.prepare(scope.ctx.request)
    encoder = _Encoder(scope, negotiated)
    deadline = asyncio.get_running_loop().time() + timeout
    interval = scope.server.bookmark_interval
    iterator = aiter(events)
    next_event: asyncio.Task[Any] | None = None
    try:
        while True:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                break
            if next_event is None:
                next_event = asyncio.ensure_future(anext(iterator))
            done, _ = await asyncio.wait({next_event}, timeout=min(remaining, interval) if bookmarks else remaining)
            if not done:
                if bookmarks and scope.store.cache is not None:
                    await response.write(encoder.frame(_bookmark(scope, scope.store.cache.revision)))
                continue
            try:
                event = next_event.result()
            except StopAsyncIteration:
                break
            finally:
                next_event = None
            if event.type == "BOOKMARK" and not bookmarks:
                continue
            await response.write(encoder.frame(event))
            if event.type == "ERROR":
                break
    except ConnectionResetError:
        pass
    finally:
        if next_event is not None:
            next_event.cancel()
            with contextlib.suppress(BaseException):
                await next_event
        await iterator.aclose()
    with contextlib.suppress(ConnectionResetError):
        await response.write_eof()
    return response


def _bookmark(scope: Scope, revision: int) -> WatchEvent:
    resource = scope.resource
    obj = {
        "kind": resource.kind,
        "apiVersion": resource.api_version,
        "metadata": {"resourceVersion": str(revision)},
    }
    return WatchEvent("BOOKMARK", obj)
