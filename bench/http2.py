"""HTTP/2 watch fan-out: the watch scenario's watchers multiplexed over a few HTTP/2 connections
(as client-go multiplexes an informer's watches), next to the same count on one HTTP/1.1
connection each. Both rows use the watch scenario's writer and latency measure; the HTTP/2
watchers are streams of `h2` client connections whose per-stream parsing is the HTTP/1.1
watchers' own (`bench.watch.Watcher`), so the two rows differ only in the protocol.
"""

from __future__ import annotations

import asyncio
from array import array
from urllib.parse import urlsplit

import h2.config
import h2.connection
import h2.events
import h2.settings

from bench.plan import Plan
from bench.progress import progress
from bench.report import Facts, Section
from bench.server import ServerProcess
from bench.watch import HEADERS, Watcher, measure_fanout, open_watchers, watch_path

CONNECTIONS = 10
# client-go's HTTP/2 transport (Go's defaults): 4 MiB stream windows, a 1 GiB connection window.
STREAM_WINDOW = 4 << 20
CONNECTION_WINDOW = 1 << 30


class _StreamWatcher(Watcher):
    """One watch stream of an HTTP/2 connection, counted as a watcher."""

    def __init__(self, latencies: array) -> None:
        super().__init__(b"", latencies)
        self.headers = b"HTTP/1.1 200"


class Http2Watches(asyncio.Protocol):
    """One HTTP/2 connection carrying `count` watch streams of `path`."""

    def __init__(self, authority: str, path: str, count: int, latencies: array) -> None:
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.request = [
            (":method", "GET"),
            (":path", path),
            (":scheme", "https"),
            (":authority", authority),
            ("accept", "application/json"),
            ("user-agent", "svc-bench"),
        ]
        self.watchers: dict[int, _StreamWatcher] = {}
        self.count = count
        self.latencies = latencies
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.h2.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: STREAM_WINDOW}
        )
        self.h2.initiate_connection()
        self.h2.increment_flow_control_window(CONNECTION_WINDOW - 65535)
        for _ in range(self.count):
            stream_id = self.h2.get_next_available_stream_id()
            self.h2.send_headers(stream_id, self.request, end_stream=True)
            self.watchers[stream_id] = _StreamWatcher(self.latencies)
        self._flush()

    def data_received(self, data: bytes) -> None:
        for event in self.h2.receive_data(data):
            watcher = self.watchers.get(getattr(event, "stream_id", 0) or 0)
            if isinstance(event, h2.events.ResponseReceived) and watcher is not None:
                status = dict(event.headers).get(":status")
                watcher.established.set_result(status == "200")
            elif isinstance(event, h2.events.DataReceived) and watcher is not None:
                watcher.data_received(event.data)
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded | h2.events.StreamReset) and watcher is not None:
                watcher.connection_lost(None)
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        for watcher in self.watchers.values():
            watcher.connection_lost(exc)

    def _flush(self) -> None:
        if self.transport is not None:
            self.transport.write(self.h2.data_to_send())


async def open_http2_watchers(
    server: ServerProcess, path: str, count: int, latencies: array
) -> tuple[list[Http2Watches], list[Watcher]]:
    address = urlsplit(server.url)
    context = server.credentials.ssl_context()
    context.set_alpn_protocols(["h2"])
    loop = asyncio.get_running_loop()
    per_connection = [count // CONNECTIONS + (index < count % CONNECTIONS) for index in range(CONNECTIONS)]
    connections = []
    for streams in per_connection:
        _, connection = await loop.create_connection(
            lambda streams=streams: Http2Watches(address.netloc, path, streams, latencies),  # type: ignore[misc]
            address.hostname,
            address.port,
            ssl=context,
        )
        connections.append(connection)
    watchers: list[Watcher] = [watcher for connection in connections for watcher in connection.watchers.values()]
    established = await asyncio.gather(*(watcher.established for watcher in watchers))
    if not all(established):
        raise RuntimeError(f"{established.count(False)} HTTP/2 watches were refused")
    return connections, watchers


async def run(server: ServerProcess, plan: Plan) -> tuple[Section, Facts]:
    section = Section(
        f"Watch fan-out over HTTP/2 ({CONNECTIONS} connections) and over HTTP/1.1 (one connection each)",
        ("protocol", *HEADERS),
    )
    facts: Facts = {}
    collection, path = await watch_path(server, "bench-watch-h2")
    latencies = array("q")
    progress(f"http2: opening {plan.watchers:,} watch streams over {CONNECTIONS} HTTP/2 connections")
    connections, watchers = await open_http2_watchers(server, path, plan.watchers, latencies)
    row, found = await measure_fanout(server, plan, collection, watchers, latencies)
    for connection in connections:
        if connection.transport is not None:
            connection.transport.close()
    section.add("HTTP/2", *row)
    facts.update({f"http2 {name}": value for name, value in found.items()})
    collection, path = await watch_path(server, "bench-watch-h1")
    latencies = array("q")
    progress(f"http2: opening {plan.watchers:,} HTTP/1.1 watchers for comparison")
    plain = await open_watchers(server, path, plan.watchers, latencies)
    row, found = await measure_fanout(server, plan, collection, plain, latencies)
    for watcher in plain:
        if watcher.transport is not None:
            watcher.transport.close()
    section.add("HTTP/1.1", *row)
    facts.update({f"http1 {name}": value for name, value in found.items()})
    section.notes.append("same server, same writer pace; the HTTP/2 row runs first")
    return section, facts
