"""Server memory per watch that starts with the current state, when its client reads none of it.

A server of its own is filled with ConfigMaps of about 5 KB, measured, then given watches that
start with ADDED events of every object (resourceVersion unset) from clients that stop reading after
the response headers, the way a stuck client or an attacker holds them. The growth per watch is
what one such watch costs the server; it is also given per byte of the state it starts from.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.client import CpuClock, open_session
from bench.objects import configmap
from bench.plan import Plan
from bench.progress import progress
from bench.raw_watches import close_watches, open_watches
from bench.report import Facts, Section, size
from bench.rest import create_many, ensure_namespace
from bench.server import start_server

NAMESPACE = "bench-watch-memory"
PAYLOAD = 5_000
SETTLE_SECONDS = 2.0
HEADERS = ("watches", "objects", "state (JSON)", "RSS before", "RSS with the watches", "per watch", "per state byte")


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    section = Section("Memory per unread watch with initial events", HEADERS)
    server = await start_server(workdir / "watch-memory-server")
    try:
        context = server.credentials.ssl_context()
        collection = f"{server.url}/api/v1/namespaces/{NAMESPACE}/configmaps"
        async with open_session(context, plan.populate_concurrency) as session:
            await ensure_namespace(session, server.url, NAMESPACE)
            progress(f"watch memory: creating {plan.watch_memory_objects:,} ConfigMaps of {size(PAYLOAD)}")
            created = await create_many(
                session,
                collection,
                lambda index: configmap(f"cm-{index}", payload=PAYLOAD),
                count=plan.watch_memory_objects,
                concurrency=plan.populate_concurrency,
                clock=CpuClock(server.cpu),
            )
            if created.errors:
                raise RuntimeError(f"could not create the ConfigMaps: {created.first_error}")
            async with session.get(collection) as response:
                state = len(await response.read())
        await asyncio.sleep(SETTLE_SECONDS)
        before = server.rss()
        progress(f"watch memory: opening {plan.watch_memory_watchers:,} watches that read nothing")
        path = f"/api/v1/namespaces/{NAMESPACE}/configmaps?watch=1&timeoutSeconds=3600"
        watches = await open_watches(server.url, context, path, plan.watch_memory_watchers)
        await asyncio.sleep(SETTLE_SECONDS)
        during = server.rss()
        await close_watches(watches)
    finally:
        server.stop()
    per_watch = (during - before) / plan.watch_memory_watchers
    section.add(
        f"{plan.watch_memory_watchers:,}",
        f"{plan.watch_memory_objects:,}",
        size(state),
        size(before),
        size(during),
        size(per_watch),
        f"{per_watch / state:.3f}",
    )
    section.notes.append(
        "per watch is (RSS with the watches open - RSS before) / watches, read "
        f"{SETTLE_SECONDS:.0f} s after the last watch was answered; the state is the size of the JSON list"
    )
    return section, {"rss per unread watch": per_watch, "rss per unread watch per state byte": per_watch / state}
