"""Watch fan-out: many watchers of one collection while a steady stream of writes is made.

Each written ConfigMap carries its write time (`time.time_ns()` just before the request) in its
data; a watcher finds those digits in the raw stream and subtracts them from its receive time, so
the delivery latency covers the write's commit, the fan-out and the transfer. The watchers are bare
asyncio protocols that never parse JSON: their per-event work is a `bytes.find`, so this client
stays cheap next to the server. The writes come from a separate process at a fixed pace, so a
busy watcher loop cannot slow the writes it is measuring.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import multiprocessing
import time
from array import array
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlsplit

import aiohttp

from bench.client import CpuClock, Credentials, cpu_note, expect, open_session, percentile, rest_of_machine
from bench.objects import SENT_KEY, configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import Facts, Section, millis, rate
from bench.rest import JSON, ensure_namespace, resource_version
from bench.server import ServerProcess

NAMESPACE = "bench-watch"
MARKER = f'"{SENT_KEY}":"'.encode()
ERROR_MARKER = b'"type":"ERROR"'
CONNECT_CONCURRENCY = 50
DRAIN_SECONDS = 15.0
DRAIN_POLL = 0.05
WRITER_CONNECTIONS = 32
HEADERS = ("watchers", "writes", "write rate", "events delivered", "lost", "p50", "p99", "notes")


class Watcher(asyncio.Protocol):
    """One watch stream: counts events and records (receive time - write time) for each, in ns."""

    def __init__(self, request: bytes, latencies: array) -> None:
        self.request = request
        self.latencies = latencies
        self.received = 0
        self.last_ns = 0
        self.errors = 0
        self.tail = b""
        self.headers = b""
        self.established: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.closed = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.time_ns()
        if not self.established.done():
            self.headers += data
            end = self.headers.find(b"\r\n\r\n")
            if end < 0:
                return
            self.established.set_result(self.headers.startswith(b"HTTP/1.1 200"))
            data = self.headers[end + 4 :]
        if self.tail:
            data = self.tail + data
        position = 0
        while True:
            start = data.find(MARKER, position)
            if start < 0:
                self.tail = data[max(position, len(data) - len(MARKER) + 1) :]
                break
            digits = start + len(MARKER)
            end = data.find(b'"', digits)
            if end < 0:
                self.tail = data[start:]
                break
            self.latencies.append(now - int(data[digits:end]))
            self.received += 1
            self.last_ns = now
            position = end
        if ERROR_MARKER in data:
            self.errors += 1

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.established.done():
            self.established.set_result(False)


@dataclass
class WriteResult:
    """What the writer process did: successful writes, their span and latencies (seconds)."""

    writes: int
    seconds: float
    latencies: list[float]
    errors: int
    first_error: str


async def _write_paced(credentials: Credentials, collection: str, pace: float, seconds: float) -> WriteResult:
    """Open-loop writes: one starts every 1/pace s whether or not earlier ones returned (up to a
    second's worth in flight), so a slow server shows as a lower achieved rate, not a hidden one."""
    total = int(pace * seconds)
    latencies: list[float] = []
    errors = 0
    first_error = ""
    async with open_session(credentials.ssl_context(), WRITER_CONNECTIONS) as session:
        limit = asyncio.Semaphore(max(1, int(pace)))

        async def write(index: int) -> None:
            nonlocal errors, first_error
            async with limit:
                body = encode(configmap(f"w-{index}", payload=200, sent_ns=time.time_ns()))
                started = time.perf_counter()
                try:
                    async with session.post(collection, data=body, headers=JSON) as response:
                        await expect(response, 201)
                except (aiohttp.ClientError, OSError, RuntimeError) as error:
                    errors += 1
                    first_error = first_error or f"{type(error).__name__}: {error}"
                    return
                latencies.append(time.perf_counter() - started)

        began = time.perf_counter()
        tasks = []
        for index in range(total):
            delay = began + index / pace - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(write(index)))
        await asyncio.gather(*tasks)
        span = time.perf_counter() - began
    latencies.sort()
    return WriteResult(len(latencies), span, latencies, errors, first_error)


def write_paced(credentials: Credentials, collection: str, pace: float, seconds: float) -> WriteResult:
    """Entry point of the writer process: `pace` creates per second for `seconds`."""
    return asyncio.run(_write_paced(credentials, collection, pace, seconds))


async def open_watchers(server: ServerProcess, path: str, count: int, latencies: array) -> list[Watcher]:
    """`count` watches of `path` (a collection with its query), each on a TLS connection of its own."""
    address = urlsplit(server.url)
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {address.netloc}\r\nAccept: application/json\r\n"
        "Accept-Encoding: identity\r\nUser-Agent: svc-bench\r\n\r\n"
    ).encode()
    context = server.credentials.ssl_context()
    loop = asyncio.get_running_loop()
    limit = asyncio.Semaphore(CONNECT_CONCURRENCY)

    async def connect() -> Watcher:
        async with limit:
            _, watcher = await loop.create_connection(
                lambda: Watcher(request, latencies), address.hostname, address.port, ssl=context
            )
            if not await watcher.established:
                raise RuntimeError(f"a watch was refused: {watcher.headers[:300]!r}")
            return watcher

    return list(await asyncio.gather(*(connect() for _ in range(count))))


async def _lag_probe(samples: list[float], stop: asyncio.Event) -> None:
    """Records how late a 10 ms sleep wakes up: this client's own scheduling delay."""
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(0.01)
        samples.append(time.perf_counter() - before - 0.01)


async def watch_path(server: ServerProcess, namespace: str = NAMESPACE) -> tuple[str, str]:
    """The watched collection's URL and the watch path (from its current resourceVersion)."""
    async with open_session(server.credentials.ssl_context(), 1) as session:
        await ensure_namespace(session, server.url, namespace)
        collection = f"{server.url}/api/v1/namespaces/{namespace}/configmaps"
        async with session.get(f"{collection}?limit=1", headers=JSON) as response:
            since = resource_version(await expect(response, 200))
    return collection, f"/api/v1/namespaces/{namespace}/configmaps?watch=1&resourceVersion={since}&timeoutSeconds=3600"


async def run(server: ServerProcess, plan: Plan) -> tuple[Section, Facts]:
    section = Section("Watch fan-out (one collection, creates at a fixed pace)", HEADERS)
    collection, path = await watch_path(server)
    latencies = array("q")
    progress(f"watch: opening {plan.watchers:,} watchers")
    watchers = await open_watchers(server, path, plan.watchers, latencies)
    row, facts = await measure_fanout(server, plan, collection, watchers, latencies)
    for watcher in watchers:
        if watcher.transport is not None:
            watcher.transport.close()
    section.add(*row)
    section.notes.append(
        "latency is receive time minus the write time embedded in the object (same clock, two processes); "
        f"a watcher still short of events {DRAIN_SECONDS:.0f} s after the last write counts them as lost"
    )
    return section, facts


async def measure_fanout(
    server: ServerProcess, plan: Plan, collection: str, watchers: list[Watcher], latencies: array
) -> tuple[tuple[str, ...], Facts]:
    """Writes at the plan's pace while `watchers` (open already) receive; the row of `HEADERS` and the facts."""
    progress(f"watch: {plan.watch_rate:.0f} writes/s for {plan.watch_seconds:.0f} s")
    lag: list[float] = []
    stop = asyncio.Event()
    probe = asyncio.create_task(_lag_probe(lag, stop))
    clock = CpuClock(server.cpu)
    before = clock.read()
    began_ns = time.time_ns()
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
        written = await asyncio.get_running_loop().run_in_executor(
            pool, write_paced, server.credentials, collection, plan.watch_rate, plan.watch_seconds
        )
    for _ in range(int(DRAIN_SECONDS / DRAIN_POLL)):
        if all(w.received >= written.writes or w.closed for w in watchers):
            break
        await asyncio.sleep(DRAIN_POLL)
    after = clock.read()
    stop.set()
    await probe
    closed = sum(w.closed for w in watchers)
    errors = sum(w.errors for w in watchers)
    delivered = sum(min(w.received, written.writes) for w in watchers)
    delivery_span = (max(w.last_ns for w in watchers) - began_ns) / 1e9
    lost = written.writes * len(watchers) - delivered
    ordered = sorted(latencies)
    facts: Facts = {
        "watch p50": percentile(ordered, 0.50) / 1e9,
        "watch p99": percentile(ordered, 0.99) / 1e9,
        "watch lost": float(lost),
        "watchers": float(len(watchers)),
    }
    span = after.wall - before.wall
    lag.sort()
    notes = [
        cpu_note(
            span,
            server=after.server - before.server,
            client=after.client - before.client,
            rest=rest_of_machine(before, after),
        )
        + " (the writer process among them)",
        f"client loop lag p99 {millis(percentile(lag, 0.99))}",
        f"write latency p50 {millis(percentile(written.latencies, 0.5))}, "
        f"p99 {millis(percentile(written.latencies, 0.99))}",
    ]
    if closed or errors:
        notes.append(f"{closed} streams closed early, {errors} ERROR events")
    if written.errors:
        notes.append(f"{written.errors} writes failed, first: {written.first_error[:120]}")
    row = (
        f"{len(watchers):,}",
        f"{written.writes:,}",
        rate(written.writes / written.seconds),
        f"{delivered:,} ({rate(delivered / delivery_span if delivery_span > 0 else math.nan)})",
        f"{lost:,}",
        millis(facts["watch p50"]),
        millis(facts["watch p99"]),
        "; ".join(notes),
    )
    return row, facts
