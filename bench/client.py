"""The load side: a TLS session from the admin kubeconfig, and timed concurrent loops.

Every scenario goes through `drive`, so each row of the table is measured the same way: a fixed
number of operations shared by `concurrency` workers on one keep-alive connection each, the wall
time of the whole batch, the latency of each operation, and the CPU both processes spent on it
(which tells whether the server or this client was the bottleneck).
"""

from __future__ import annotations

import asyncio
import base64
import math
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import aiohttp
import yaml

from bench.procfs import machine_busy_seconds

SATURATED = 0.9
DISTURBED = 0.25
ATTEMPTS = 3
RETRY_PAUSE = 2.0


@dataclass(frozen=True)
class Credentials:
    """The server address and the admin's TLS material, unpacked to files for `ssl`."""

    server: str
    ca_file: Path
    cert_file: Path
    key_file: Path

    def ssl_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.ca_file))
        context.load_cert_chain(str(self.cert_file), str(self.key_file))
        context.set_alpn_protocols(["http/1.1"])
        return context


def load_credentials(kubeconfig: Path, workdir: Path) -> Credentials:
    """Reads the current context of `kubeconfig` (inline data, as the server writes it) into `workdir`."""
    config = yaml.safe_load(kubeconfig.read_text())
    context = next(c["context"] for c in config["contexts"] if c["name"] == config["current-context"])
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user = next(u["user"] for u in config["users"] if u["name"] == context["user"])
    workdir.mkdir(parents=True, exist_ok=True)
    files = {
        "ca.crt": cluster["certificate-authority-data"],
        "admin.crt": user["client-certificate-data"],
        "admin.key": user["client-key-data"],
    }
    for name, data in files.items():
        (workdir / name).write_bytes(base64.b64decode(data))
        (workdir / name).chmod(0o600)
    return Credentials(cluster["server"], workdir / "ca.crt", workdir / "admin.crt", workdir / "admin.key")


def open_session(context: ssl.SSLContext, connections: int) -> aiohttp.ClientSession:
    """A keep-alive session with at most `connections` connections and no cookie jar.

    It asks for uncompressed bodies (aiohttp would offer gzip by default): over loopback,
    compression is only a cost, and a row that wants it asks for it explicitly.
    """
    connector = aiohttp.TCPConnector(limit=connections, ssl=context, ttl_dns_cache=None)
    return aiohttp.ClientSession(
        connector=connector,
        headers={"Accept-Encoding": "identity"},
        auto_decompress=False,
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=aiohttp.ClientTimeout(total=300),
    )


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending sequence (`fraction` in [0, 1]); NaN when empty."""
    if not ordered:
        return math.nan
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"percentile fraction must be within [0, 1], got {fraction}")
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@dataclass
class Measurement:
    """One timed batch: operations, wall seconds, sorted latencies (seconds), CPU seconds of each side."""

    ops: int
    seconds: float
    latencies: list[float]
    client_cpu: float = 0.0
    server_cpu: float = 0.0
    rest_cpu: float = 0.0
    errors: int = 0
    first_error: str = ""
    attempts: int = 1

    @property
    def disturbed(self) -> bool:
        """Whether other processes took a quarter of a core or more while this batch ran."""
        return self.seconds > 0 and self.rest_cpu / self.seconds >= DISTURBED

    @property
    def rate(self) -> float:
        return self.ops / self.seconds if self.seconds > 0 else math.nan

    @property
    def p50(self) -> float:
        return percentile(self.latencies, 0.50)

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 0.99)

    def cpu_note(self) -> str:
        """Each process's CPU as a share of one core over the batch."""
        if self.seconds <= 0:
            return ""
        note = cpu_note(self.seconds, server=self.server_cpu, client=self.client_cpu, rest=self.rest_cpu)
        if self.attempts > 1:
            note += f" (least disturbed of {self.attempts} runs)"
        if self.errors:
            note += f"; {self.errors} errors, first: {self.first_error[:120]}"
        return note


def cpu_share(cpu: float, seconds: float) -> str:
    """CPU seconds as a share of one core, marked when that process was the bottleneck (≥ 90%)."""
    share = cpu / seconds
    return f"{share:.0%}" + (" (saturated)" if share >= SATURATED else "")


def cpu_note(seconds: float, *, server: float, client: float, rest: float) -> str:
    """The CPU line of a row: the server, the client, and what every other process took meanwhile."""
    disturbed = " (disturbed)" if rest / seconds >= DISTURBED else ""
    return (
        f"server CPU {cpu_share(server, seconds)}, client CPU {cpu_share(client, seconds)}, "
        f"other processes {rest / seconds:.0%}{disturbed}"
    )


def rest_of_machine(before: CpuReading, after: CpuReading) -> float:
    """CPU seconds the machine spent on neither the client nor the server between two readings."""
    spent = (after.machine - before.machine) - (after.client - before.client) - (after.server - before.server)
    return max(spent, 0.0)


class CpuReading(NamedTuple):
    """Wall time and CPU seconds of this process, the other one, and the whole machine, at one instant."""

    wall: float
    client: float
    server: float
    machine: float


class CpuClock:
    """Reads the CPU time of this process (the client) and of another one (the server) together."""

    def __init__(
        self, server: Callable[[], float] | None = None, *, machine: Callable[[], float] = machine_busy_seconds
    ) -> None:
        self.server = server or (lambda: 0.0)
        self.machine = machine

    def read(self) -> CpuReading:
        return CpuReading(time.perf_counter(), time.process_time(), self.server(), self.machine())


async def _measure_once(
    operation: Callable[[int], Awaitable[object]],
    count: int,
    concurrency: int,
    clock: CpuClock,
    failures: tuple[type[Exception], ...],
) -> Measurement:
    latencies: list[float] = []
    errors = 0
    first_error = ""
    next_index = 0

    async def worker() -> None:
        nonlocal next_index, errors, first_error
        while next_index < count:
            index = next_index
            next_index += 1
            started = time.perf_counter()
            try:
                await operation(index)
            except failures as error:
                errors += 1
                first_error = first_error or f"{type(error).__name__}: {error}"
                continue
            latencies.append(time.perf_counter() - started)

    before = clock.read()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    after = clock.read()
    latencies.sort()
    return Measurement(
        ops=len(latencies),
        seconds=after.wall - before.wall,
        latencies=latencies,
        client_cpu=after.client - before.client,
        server_cpu=after.server - before.server,
        rest_cpu=rest_of_machine(before, after),
        errors=errors,
        first_error=first_error,
    )


async def drive(
    operation: Callable[[int], Awaitable[object]],
    *,
    count: int,
    concurrency: int,
    clock: CpuClock,
    failures: tuple[type[Exception], ...] = (aiohttp.ClientError, OSError, RuntimeError),
    repeatable: bool = False,
) -> Measurement:
    """Runs `operation(i)` for i in range(count) with `concurrency` workers; one of `failures` counts as an error.

    On a shared machine other processes can take a core in the middle of a batch. A `repeatable`
    batch (one that may run twice, such as reads) that was disturbed is run again, up to
    `ATTEMPTS` times in all, a short pause apart, and the least disturbed run is kept.
    """
    runs: list[Measurement] = []
    while len(runs) < (ATTEMPTS if repeatable else 1):
        if runs:
            await asyncio.sleep(RETRY_PAUSE)
        runs.append(await _measure_once(operation, count, concurrency, clock, failures))
        if not runs[-1].disturbed:
            break
    best = min(runs, key=lambda run: run.rest_cpu / run.seconds if run.seconds > 0 else math.inf)
    best.attempts = len(runs)
    return best


async def expect(response: aiohttp.ClientResponse, *statuses: int) -> bytes:
    """The body of `response`, or RuntimeError naming the status when it is not one of `statuses`."""
    body = await response.read()
    if response.status not in statuses:
        raise RuntimeError(f"{response.method} {response.url.path}: {response.status} {body[:200]!r}")
    return body
