"""Snapshots: save the whole store and restore it under a running server (`/testing/v1/`).

The server is filled with ConfigMaps by concurrent creates, saved once, then restored several
times with one more object created before each restore, so every restore has something to undo.
The server reports two times per restore: the storage's (the SQLite backup into the live
database, revisions moved past the current one) and the whole request's, which adds reloading
every watch cache from the restored state. The client's time adds the HTTP round trip.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import orjson

from bench.client import CpuClock, expect, open_session
from bench.objects import configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import Facts, Section, millis
from bench.rest import JSON, create_many, ensure_namespace
from bench.server import start_server

HEADERS = ("operation", "objects", "storage p50", "server p50", "client p50", "notes")
NAMESPACE = "bench-snapshots"


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    count = plan.snapshot_objects
    section = Section(f"Snapshots of {count:,} ConfigMaps ({plan.snapshot_restores} restores)", HEADERS)
    server = await start_server(workdir / "snapshots", extra=("--enable-test-endpoints",))
    try:
        async with open_session(server.credentials.ssl_context(), plan.populate_concurrency) as session:
            await ensure_namespace(session, server.url, NAMESPACE)
            collection = f"{server.url}/api/v1/namespaces/{NAMESPACE}/configmaps"
            progress(f"snapshots: creating {count:,} ConfigMaps")
            filled = await create_many(
                session,
                collection,
                lambda index: configmap(f"obj-{index}"),
                count=count,
                concurrency=plan.populate_concurrency,
                clock=CpuClock(server.cpu),
            )
            if filled.errors:
                raise RuntimeError(f"could not create the ConfigMaps: {filled.first_error}")
            started = time.perf_counter()
            async with session.post(f"{server.url}/testing/v1/snapshots/bench") as response:
                saved = orjson.loads(await expect(response, 201))
            save_client = time.perf_counter() - started
            storage, whole, client = [], [], []
            for attempt in range(plan.snapshot_restores):
                progress(f"snapshots: restore {attempt + 1} of {plan.snapshot_restores}")
                extra = encode(configmap(f"extra-{attempt}"))
                async with session.post(collection, data=extra, headers=JSON) as response:
                    await expect(response, 201)
                started = time.perf_counter()
                async with session.post(f"{server.url}/testing/v1/snapshots/bench/restore") as response:
                    restored = orjson.loads(await expect(response, 200))
                client.append(time.perf_counter() - started)
                storage.append(restored["storageSeconds"])
                whole.append(restored["seconds"])
    finally:
        server.stop()
    section.add("save", f"{count:,}", millis(saved["seconds"]), millis(saved["seconds"]), millis(save_client), "")
    restore = statistics.median(storage)
    section.add(
        "restore",
        f"{count:,}",
        millis(restore),
        millis(statistics.median(whole)),
        millis(statistics.median(client)),
        "server: storage + every watch cache reloaded",
    )
    facts: Facts = {
        "snapshot objects": float(count),
        "snapshot save": saved["seconds"],
        "snapshot restore": restore,
        "snapshot restore reloaded": statistics.median(whole),
    }
    return section, facts
