"""GET of a collection with `watch`: a chunked stream of watch events, one document per event."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from collections.abc import Callable

from aiohttp import web

from svc.apiserver.handlers import list as listing
from svc.apiserver.handlers.scope import Scope
from svc.apiserver.http2_stream import StreamTransport
from svc.apiserver.metrics_watch import WatchSeries
from svc.machinery import status, wallclock
from svc.registry.initial_events import BATCH_BYTES
from svc.registry.watch import WatchEvent, WatchStream
from svc.storage.watch_cache import TOO_SLOW
from svc.wire.negotiation import Negotiated, View

# A pushed watcher whose connection holds more unsent bytes than this is too slow and is ended.
_PUSH_BUFFER_LIMIT = 8 * 1024 * 1024
_WRITE_BUFFER_HIGH = 32 * 1024
_EVENT_BYTES = 1024  # what an event without its encoded object counts for in a slice
_SEND_BUFFER = 128 * 1024


def _boolean_param(scope: Scope, name: str) -> bool | None:
    if name not in scope.query:
        return None
    return scope.query[name].lower() in ("1", "true", "t", "")


def _timeout(scope: Scope) -> float:
    """Upstream's rule: `timeoutSeconds` when not 0; when unset or 0, a random time in
    [minRequestTimeout, 2 * minRequestTimeout) so watches do not all end together. A negative value
    (or 0 with no minimum) leaves no time: the watch is answered 200 and ends at once."""
    text = scope.query.get("timeoutSeconds", "")
    seconds = 0
    if text:
        try:
            seconds = int(text)
        except ValueError:
            raise status.bad_request(f'timeoutSeconds: Invalid value: "{text}": must be an integer') from None
    if seconds == 0:
        return scope.server.options.min_request_timeout * (1 + random.random())
    return float(max(seconds, 0))


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
    """Frames events in the negotiated format and view. The frame of a whole object is shared by every
    watcher of a cache event (kept on the event, per format, served version and event type); compact
    JSON is the cache's own bytes."""

    def __init__(self, scope: Scope, negotiated: Negotiated) -> None:
        self.scope = scope
        self.negotiated = negotiated
        self.first_table = True
        resource = scope.resource
        self.sent: WatchSeries = scope.server.metrics.watch_events.series(
            resource.group, resource.version, resource.name
        )

    def frame(self, event: WatchEvent) -> bytes:
        negotiated = self.negotiated
        fmt = negotiated.format
        assert fmt.watch_frame is not None
        if event.type in ("ERROR", "BOOKMARK"):
            encoded = fmt.encode(event.object)
        elif negotiated.view is View.FULL:
            if event.source is not None:
                cache_key = (fmt.media_type, event.identity, event.type)
                return event.source.shared(cache_key, lambda: fmt.watch_frame(event.type, self._whole(event)))
            encoded = self._whole(event)
        else:
            obj = self.scope.render(event.object, negotiated, is_list=False)
            if negotiated.view is View.TABLE:
                if not self.first_table:  # upstream's NoHeaders leaves the (non-omitempty) list nil
                    obj["columnDefinitions"] = None
                self.first_table = False
            encoded = fmt.encode(obj)
        return fmt.watch_frame(event.type, encoded)

    def frames(self, batch: list[WatchEvent], shared_as: tuple[str, str] | None, bookmarks: bool) -> bytes:
        """The frames of a batch (counted as sent); for a batch of the cache that every caught-up
        watcher of `shared_as` receives alike, made once for all of them."""
        first, last = batch[0].source, batch[-1].source
        if shared_as is not None and first is not None and last is not None and self.negotiated.view is View.FULL:
            key = ("frames", first.revision, len(batch), self.negotiated.format.media_type, shared_as)
            data = last.shared(key, lambda: b"".join(self.frame(event) for event in batch))
            self.sent.add(len(batch), len(data))
            return data
        sent = [self.frame(event) for event in batch if bookmarks or event.type != "BOOKMARK"]
        data = b"".join(sent)
        self.sent.add(len(sent), len(data))
        return data

    def _whole(self, event: WatchEvent) -> bytes:
        if event.cached is not None and self.negotiated.plain_json:
            data = event.cached.json_as(*event.identity)
            if data is not None:
                return data
        return self.negotiated.format.encode(event.object)


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
    stream = await scope.store.watch(scope.namespace, options, initial=send_initial)
    request = scope.ctx.request
    watches = scope.server.watches
    try:
        response = web.StreamResponse(status=200, headers={"Content-Type": negotiated.format.stream_media_type})
        response.enable_chunked_encoding()
        transport = request.transport
        if transport is None or transport.is_closing():
            return response  # the client left while the watch was set up: nothing to serve
        _limit_buffers(transport)
        watches.add(request.protocol, transport, stream)
        scope.ctx.response_started(response)
        await response.prepare(request)
        with contextlib.suppress(ConnectionResetError):
            await _serve(scope, stream, _Encoder(scope, negotiated), response, timeout, bookmarks)
            await response.write_eof()
    finally:
        watches.remove(request.protocol)
        await stream.close()
    return response


async def _serve(
    scope: Scope,
    stream: WatchStream,
    encoder: _Encoder,
    response: web.StreamResponse,
    seconds: float,
    bookmarks: bool,
) -> None:
    """Write each batch of events (in chunks of about `BATCH_BYTES` of objects, each after the
    connection drained the one before) until `seconds` pass, the stream ends or fails; with
    bookmarks, one every bookmark interval."""
    now = wallclock.monotonic()  # the server's clock: a fake one ends watches and sends bookmarks when advanced
    deadline = now + seconds
    interval = scope.server.bookmark_interval
    next_bookmark = now + interval
    pushing = False
    while (now := wallclock.monotonic()) < deadline:
        if not pushing and stream.shared_as is not None and encoder.negotiated.view is View.FULL:
            await response.write(b"")  # sends the headers, which must precede any direct write
            pushing = stream.push(_direct_writer(scope, stream, encoder))
        wait = min(deadline, next_bookmark) - now if bookmarks else deadline - now
        batch = await stream.next_batch(max(wait, 0.0))
        if batch is None:
            return
        *earlier, last = _slices(batch)
        for part in earlier:
            await response.write(encoder.frames(part, stream.shared_as, bookmarks))
            _check_backlog(scope)
        frames = [encoder.frames(last, stream.shared_as, bookmarks)] if last else []
        if bookmarks and wallclock.monotonic() >= next_bookmark:
            next_bookmark = wallclock.monotonic() + interval
            if (revision := stream.progress) is not None:
                frames.append(bookmark := encoder.frame(_bookmark(scope, revision)))
                encoder.sent.add(1, len(bookmark))
        if frames:
            await response.write(b"".join(frames))
            _check_backlog(scope)
        if batch and batch[-1].type == "ERROR":
            return


def _slices(batch: list[WatchEvent]) -> list[list[WatchEvent]]:
    """`batch` cut where its objects pass `BATCH_BYTES` (one slice for the usual small batch), so a
    long backlog is encoded and buffered a slice at a time rather than all at once."""
    slices: list[list[WatchEvent]] = []
    start = size = 0
    for index, event in enumerate(batch):
        size += len(event.cached.data) if event.cached is not None else _EVENT_BYTES
        if size >= BATCH_BYTES:
            slices.append(batch[start : index + 1])
            start, size = index + 1, 0
    if start < len(batch) or not slices:
        slices.append(batch[start:])
    return slices


def _direct_writer(scope: Scope, stream: WatchStream, encoder: _Encoder) -> Callable[[list[WatchEvent]], None]:
    """Writes a pushed batch straight to the connection as one HTTP chunk (or HTTP/2 data) (aiohttp's writer needs a
    task to await it, which is the cost pushing avoids); a closed or backed-up connection ends the
    watch instead."""

    def write(batch: list[WatchEvent]) -> None:
        transport = scope.ctx.request.transport
        if transport is None or transport.is_closing():
            stream.fail("the connection was closed")
            return
        if transport.get_write_buffer_size() > _PUSH_BUFFER_LIMIT:
            stream.fail(TOO_SLOW)
            return
        data = encoder.frames(batch, stream.shared_as, True)
        if isinstance(transport, StreamTransport):
            transport.write(data)  # an HTTP/2 stream: the protocol frames it
        else:
            transport.write(b"%x\r\n%b\r\n" % (len(data), data))
        _check_backlog(scope)

    return write


def _check_backlog(scope: Scope) -> None:
    """A connection holding more than its write limit is a watcher falling behind: have the
    server's watch memory summed (see svc.apiserver.watches)."""
    transport = scope.ctx.request.transport
    if transport is not None and transport.get_write_buffer_size() > _WRITE_BUFFER_HIGH:
        scope.server.watches.backed_up()


def _limit_buffers(transport: asyncio.Transport | None) -> None:
    """Keep what an unread watch can hold small: the socket's send buffer (which Linux would grow
    to megabytes over loopback, in the kernel's memory) and the transport's write buffer, above
    which a write waits for the client."""
    if transport is None:
        return
    transport.set_write_buffer_limits(high=_WRITE_BUFFER_HIGH)
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _SEND_BUFFER)


def _bookmark(scope: Scope, revision: int) -> WatchEvent:
    resource = scope.resource
    obj = {
        "kind": resource.kind,
        "apiVersion": resource.api_version,
        "metadata": {"resourceVersion": str(revision)},
    }
    return WatchEvent("BOOKMARK", obj)
