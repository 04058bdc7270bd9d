"""What idle watch connections cost the server: RSS and file descriptors per connection.

A fresh server is measured with nothing open, then with N watches open on an empty collection
(each on a TLS connection of its own, as N separate clients would hold them), then after they are
closed again. Nothing is written meanwhile, so the growth is the price of holding a connection and
a watch: the socket, TLS state, aiohttp's protocol, the request and the watcher's queue.
"""

from __future__ import annotations

import asyncio
import resource
from array import array
from pathlib import Path

from bench.client import expect, open_session
from bench.plan import Plan
from bench.procfs import open_fds
from bench.progress import progress
from bench.report import Facts, Section, size
from bench.rest import JSON, ensure_namespace, resource_version
from bench.server import ServerProcess, start_server
from bench.watch import open_watchers

NAMESPACE = "bench-connections"
SETTLE_SECONDS = 3.0
HEADERS = ("state", "watch connections", "RSS", "open fds", "RSS per connection", "fds per connection")


def _raise_open_file_limit(needed: int) -> None:
    """This client holds one descriptor per watch too."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def _reading(server: ServerProcess) -> tuple[int, int]:
    await asyncio.sleep(SETTLE_SECONDS)
    return server.rss(), open_fds(server.pid)


async def _measure(server: ServerProcess, count: int, section: Section, facts: Facts) -> None:
    async with open_session(server.credentials.ssl_context(), 1) as session:
        await ensure_namespace(session, server.url, NAMESPACE)
        collection = f"{server.url}/api/v1/namespaces/{NAMESPACE}/configmaps"
        async with session.get(f"{collection}?limit=1", headers=JSON) as response:
            since = resource_version(await expect(response, 200))
    rss, fds = await _reading(server)
    section.add("no watches", "0", size(rss), f"{fds:,}", "", "")
    progress(f"connections: opening {count:,} idle watches")
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps?watch=1&resourceVersion={since}&timeoutSeconds=3600"
    watchers = await open_watchers(server, path, count, array("q"))
    try:
        open_rss, open_fds_count = await _reading(server)
        closed_early = sum(watcher.closed for watcher in watchers)
        per_rss = (open_rss - rss) / count
        per_fds = (open_fds_count - fds) / count
        section.add(
            "watches open, idle",
            f"{count - closed_early:,}",
            size(open_rss),
            f"{open_fds_count:,}",
            size(per_rss),
            f"{per_fds:.2f}",
        )
        facts["idle watch rss"] = per_rss
        facts["idle watch fds"] = per_fds
    finally:
        for watcher in watchers:
            if watcher.transport is not None:
                watcher.transport.close()
    closed_rss, closed_fds = await _reading(server)
    section.add("all closed again", "0", size(closed_rss), f"{closed_fds:,}", "", "")


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    section = Section(f"Idle watch connections ({plan.idle_watches:,}, one TLS connection each)", HEADERS)
    facts: Facts = {}
    _raise_open_file_limit(plan.idle_watches + 1_000)
    server = await start_server(workdir / "connections-server")
    try:
        await _measure(server, plan.idle_watches, section, facts)
    finally:
        server.stop()
    section.notes.append(
        f"readings {SETTLE_SECONDS:.0f} s after the last change; per connection is (reading with the watches "
        "open - reading with none) / watches; the RSS left after closing is memory the allocator keeps"
    )
    return section, facts
