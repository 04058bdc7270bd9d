"""ConfigMap create and get at 32 clients against svc-apiserver on etcd: one server, then two servers
sharing the same etcd (the clients split evenly between them).

Run it beside the `etcd` anchor (`--only etcd,etcdserver`), so "our create on etcd / etcd put" compares
the same machine in the same run. The CPU column counts the API server(s) only; etcd's own CPU is
in the anchor's rows. With two cores, two API servers and etcd compete for them, so the second row
says what the extra server costs on this machine more than what it adds on a real one.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from bench.anchors.etcd import ensure_etcd, start_etcd
from bench.client import CpuClock, drive, open_session
from bench.crud import NAMESPACE, ConfigMapSet
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row, not_measured
from bench.rest import ensure_namespace
from bench.server import ServerProcess, start_server

CLIENTS = 32
_ROWS = {"create": "create", "get": "get", "get_cached": "get ?resourceVersion=0"}


async def _measure(servers: list[ServerProcess], count: int, label: str, section: Section, facts: Facts) -> None:
    clock = CpuClock(lambda: sum(server.cpu() for server in servers))
    per_server = CLIENTS // len(servers)
    async with contextlib.AsyncExitStack() as stack:
        sets = []
        for index, server in enumerate(servers):
            session = await stack.enter_async_context(open_session(server.credentials.ssl_context(), per_server))
            await ensure_namespace(session, server.url, NAMESPACE)
            sets.append(ConfigMapSet(session, server.url, f"etcd-{len(servers)}-{index}", count))

        def spread(verb: str):
            async def operation(index: int) -> None:
                await getattr(sets[index % len(sets)], verb)(index)

            return operation

        await drive(spread("warm"), count=CLIENTS * 4, concurrency=CLIENTS, clock=clock)
        for verb, repeatable in (("create", False), ("get", True), ("get_cached", True)):
            progress(f"etcdserver: {verb} x{count:,} with {CLIENTS} clients on {label}")
            measured = await drive(spread(verb), count=count, concurrency=CLIENTS, clock=clock, repeatable=repeatable)
            row = _ROWS[verb]
            section.add(*latency_row(f"ConfigMap {row} on etcd, {label}", CLIENTS, measured))
            facts[f"etcd-server {verb}/{len(servers)}"] = measured.rate


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    section = Section("svc-apiserver on etcd (--storage-backend=store3)", LATENCY_HEADERS)
    facts: Facts = {}
    binary, reason = await asyncio.get_running_loop().run_in_executor(None, ensure_etcd)
    if not binary:
        not_measured(section, "ConfigMap create/get on etcd", reason)
        return section, facts
    process, port = await start_etcd(binary, workdir / "etcd-for-server")
    count = plan.crud_ops[CLIENTS]
    flags = ("--storage-backend=store3", f"--store-servers=http://127.0.0.1:{port}")
    servers: list[ServerProcess] = []
    try:
        servers.append(await start_server(workdir / "etcd-server-0", extra=flags))
        await _measure(servers, count, "1 server", section, facts)
        servers.append(await start_server(workdir / "etcd-server-1", extra=flags))
        await _measure(servers, count, "2 servers", section, facts)
    finally:
        for server in servers:
            server.stop()
        process.terminate()
        process.wait(30)
    starts = " and ".join(f"{server.startup_seconds:.2f} s" for server in servers)
    section.notes.append(
        f"exec to the first /readyz 200 on etcd: {starts} (new data directories, so each start generates its "
        "PKI, as the cold start section's first start on SQLite does)"
    )
    section.notes.append(
        f"etcd with default settings (fsync on every commit); {CLIENTS} clients spread evenly over the servers; "
        "CPU is the API servers' only; a GET without resourceVersion reads etcd (as upstream's), "
        "one with resourceVersion=0 is served from each server's watch cache"
    )
    return section, facts
