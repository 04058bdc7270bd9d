"""Server memory under many watches that start with the current state and read nothing of it.

Measured on this machine: 2,000 such watches over 1,000 ConfigMaps of 5 KB (about 5 MB of JSON)
added about 230 KB each to the server's RSS (an idle watch alone is about 50 KB: TLS state, the
request, the stream; the rest is what waits on its connection: the transport's write limit, one
slice of events, the TLS and TCP layers' buffers). Before the initial state was streamed from the
shared snapshot a slice at a time, the same watches took about 9.5 MB each (19 GB in all; 200 of
them took 1.9 GB). The bound below, 320 KB per watch, is that measurement with a margin for the
allocator, and 30 times less than the old cost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest

from bench.procfs import rss_bytes
from bench.raw_watches import close_watches, open_watches
from tests.apiserver.test_watch_lifetime import tls_context

PATH = "/api/v1/namespaces/default/configmaps"
OBJECTS = 1_000
OBJECT_BYTES = 5_000
WATCHES = 2_000
BYTES_PER_WATCH = 320 * 1024
WRITERS = 4


def _fill(server) -> None:
    def create(first: int) -> None:
        api = server.client()
        for index in range(first, OBJECTS, WRITERS):
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{index}"}}
            body["data"] = {"payload": "x" * OBJECT_BYTES}
            assert api.request("POST", PATH, body=body).status == 201

    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        list(pool.map(create, range(WRITERS)))


@pytest.mark.slow
def test_watches_with_initial_state_hold_little_memory_each(svc_server_process) -> None:
    server = svc_server_process()
    assert server.process is not None
    _fill(server)
    before = rss_bytes(server.process.pid)

    async def scenario() -> int:
        watches = await open_watches(server.url, tls_context(server), f"{PATH}?watch=1&timeoutSeconds=600", WATCHES)
        await asyncio.sleep(1.0)  # what the server can write before the unread connections stop it
        resident = rss_bytes(server.process.pid)
        await close_watches(watches)
        return resident

    during = asyncio.run(scenario())
    assert during - before < WATCHES * BYTES_PER_WATCH, f"{(during - before) / WATCHES / 1024:.0f} KB per watch"
