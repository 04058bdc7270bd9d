"""Server memory per stored object, and cold start: exec to the first `/readyz` 200.

A server of its own (nothing else has run in it) is measured empty, then after each step of
concurrent pod creates, then restarted on the filled store, which is also the start time with
that many objects. Bytes per object are the RSS growth over the empty server divided by the
objects added, and are also given per byte of the object's JSON, the unit of the target.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.client import CpuClock, expect, open_session
from bench.objects import pod
from bench.plan import Plan
from bench.progress import progress
from bench.report import Facts, Section, rate, size
from bench.rest import JSON, create_many, ensure_default_account, ensure_namespace
from bench.server import ServerProcess, start_server

NAMESPACE = "bench-memory"
SETTLE_SECONDS = 2.0
WARM_UP = 100
MEMORY_HEADERS = ("state", "objects", "RSS", "RSS growth per object", "per byte of object JSON", "notes")
START_HEADERS = ("start", "objects", "exec to /readyz 200", "RSS when ready")


def _store_bytes(data_dir: Path) -> int:
    return sum(path.stat().st_size for path in data_dir.glob("state.db*") if path.is_file())


async def _settled_rss(server: ServerProcess) -> int:
    """RSS after a short pause, so buffers of the last requests are released first."""
    await asyncio.sleep(SETTLE_SECONDS)
    return server.rss()


async def _fill(server: ServerProcess, plan: Plan, memory: Section, facts: Facts) -> tuple[int, int]:
    """Creates pods step by step, an RSS row after each; returns how many exist and the size of one.

    The first step is a small warm-up: it pays the one-time costs of the create path (schemas,
    code, caches), so the steps after it measure what each further object costs.
    """
    empty = await _settled_rss(server)
    facts["rss empty"] = float(empty)
    memory.add("empty", "0", size(empty), "", "", "")
    clock = CpuClock(server.cpu)
    stored = object_size = 0
    baseline = (0, empty)
    async with open_session(server.credentials.ssl_context(), plan.populate_concurrency) as session:
        await ensure_namespace(session, server.url, NAMESPACE)
        await ensure_default_account(session, server.url, NAMESPACE)
        collection = f"{server.url}/api/v1/namespaces/{NAMESPACE}/pods"
        for step in (WARM_UP, *plan.memory_steps):
            progress(f"memory: creating pods up to {step:,}")
            first = stored
            created = await create_many(
                session,
                collection,
                lambda index, first=first: pod(f"pod-{first + index}"),
                count=step - stored,
                concurrency=plan.populate_concurrency,
                clock=clock,
            )
            if created.errors:
                raise RuntimeError(f"could not create the pods to measure: {created.first_error}")
            stored = step
            async with session.get(f"{collection}/pod-0", headers=JSON) as response:
                object_size = len(await expect(response, 200))
            resident = await _settled_rss(server)
            if step == WARM_UP:
                baseline = (stored, resident)
                memory.add(
                    "warm-up pods stored", f"{stored:,}", size(resident), "", "", "the baseline of the rows below"
                )
                continue
            per_object = (resident - baseline[1]) / (stored - baseline[0])
            memory.add(
                "pods stored",
                f"{stored:,}",
                size(resident),
                size(per_object),
                f"{per_object / object_size:.2f}",
                f"pod JSON {size(object_size)}; from empty {size((resident - empty) / stored)} per object; "
                f"created at {rate(created.rate)} with {plan.populate_concurrency} clients; "
                f"database {size(_store_bytes(server.data_dir))}",
            )
            facts["rss per json byte"] = per_object / object_size
            facts["pod bytes"] = float(object_size)
            facts["stored objects"] = float(stored)
    return stored, object_size


async def run(workdir: Path, plan: Plan) -> tuple[list[Section], Facts]:
    memory = Section("Server memory (RSS from /proc/<pid>/status)", MEMORY_HEADERS)
    starts = Section("Cold start", START_HEADERS)
    facts: Facts = {}
    data_dir = workdir / "memory-server"
    progress("memory: first start (generates the PKI)")
    server = await start_server(data_dir)
    server.stop()
    starts.add("first start of a new data directory (generates the PKI)", "0", f"{server.startup_seconds:.2f} s", "")
    progress("memory: restart, empty")
    server = await start_server(data_dir)
    facts["start empty"] = server.startup_seconds
    starts.add("restart, empty store", "0", f"{server.startup_seconds:.2f} s", size(server.rss()))
    try:
        stored, object_size = await _fill(server, plan, memory, facts)
    finally:
        server.stop()
    progress(f"memory: restart with {stored:,} pods")
    server = await start_server(data_dir)
    try:
        facts["start full"] = server.startup_seconds
        ready = server.rss()
        starts.add(f"restart with {stored:,} pods", f"{stored:,}", f"{server.startup_seconds:.2f} s", size(ready))
        resident = await _settled_rss(server)
        per_object = (resident - facts["rss empty"]) / stored
        memory.add(
            "after a restart", f"{stored:,}", size(resident), size(per_object), f"{per_object / object_size:.2f}", ""
        )
    finally:
        server.stop()
    memory.notes.append(
        f"growth per object is (RSS with N objects - RSS with the {WARM_UP} warm-up pods) / (N - {WARM_UP}); "
        "after a restart it is (RSS - empty RSS) / N; KB and MB are binary (1,024)"
    )
    starts.notes.append("from just before the exec to the first 200 of /readyz, polled every 5 ms")
    return [memory, starts], facts
