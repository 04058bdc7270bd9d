"""How long a watch lives and what it may hold: it ends when its client goes, when its
`timeoutSeconds` says so, and when the server's watches together hold too much memory."""

from __future__ import annotations

import asyncio
import json
import ssl
import time

from bench.raw_watches import close_watches, open_watches
from svc.client.kubeconfig import load_kubeconfig
from svc.client.rest import ssl_context
from svc.testing.harness import RunningServer

PATH = "/api/v1/namespaces/default/configmaps"
WATCHES = 500


def tls_context(server: RunningServer) -> ssl.SSLContext:
    """The admin's TLS context for raw connections to `server`."""
    return ssl_context(load_kubeconfig(server.kubeconfig))


def _served(server: RunningServer) -> int:
    """Watches the server is serving, and watchers registered with its configmap watch cache."""
    assert server.server is not None
    watches = server.server.watches
    cache = next(cache for prefix, cache in server.server.caches.items() if prefix.endswith("/configmaps/"))

    async def count() -> int:
        return len(watches) + len(cache._watchers)

    return server.call(count())


def _wait_until(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _create(server: RunningServer, count: int, size: int) -> None:
    api = server.client()
    for index in range(count):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{index}"}, "data": {"k": "x" * size}}
        assert api.request("POST", PATH, body=body).status == 201


def test_watches_whose_clients_close_are_gone_within_a_second(svc_server) -> None:
    async def scenario() -> float:
        watches = await open_watches(
            svc_server.url, tls_context(svc_server), f"{PATH}?watch=1&timeoutSeconds=600", WATCHES
        )
        assert _wait_until(lambda: _served(svc_server) == 2 * WATCHES, 10)
        await close_watches(watches)
        return time.monotonic()

    closed = asyncio.run(scenario())
    assert _wait_until(lambda: _served(svc_server) == 0, 1.0 - (time.monotonic() - closed))


def test_negative_timeout_answers_200_and_ends_at_once(svc_server) -> None:
    _create(svc_server, 1, 10)
    response = svc_server.client(timeout=5.0).request("GET", f"{PATH}?watch=1&timeoutSeconds=-1")
    assert response.status == 200
    assert response.body == b""


def test_zero_timeout_is_the_default_not_an_immediate_end(svc_server) -> None:
    _create(svc_server, 1, 10)
    stream = svc_server.client(timeout=5.0).stream(PATH, params={"watch": "1", "timeoutSeconds": "0"})
    lines = iter(stream)
    assert b'"ADDED"' in next(lines)
    stream.close()


def test_watches_over_the_memory_limit_are_ended_costliest_first(svc_server) -> None:
    """Ten watches that read nothing, over enough state that each backs up its connection: with a
    limit below what they hold, the server ends watches until what is left is within it."""
    assert svc_server.server is not None
    _create(svc_server, 200, 5000)
    watches_served = svc_server.server.watches
    limit = 64 * 1024

    async def set_limit() -> None:
        watches_served.memory_limit = limit

    svc_server.call(set_limit())

    async def held() -> int:
        return sum(served.held_bytes() for served in watches_served._served.values())

    async def scenario() -> int:
        watches = await open_watches(svc_server.url, tls_context(svc_server), f"{PATH}?watch=1&timeoutSeconds=600", 10)
        assert _wait_until(lambda: watches_served.ended_for_memory > 0, 5)
        await asyncio.sleep(0.2)
        still_held = svc_server.call(held())
        await close_watches(watches)
        return still_held

    still_held = asyncio.run(scenario())
    assert 0 < watches_served.ended_for_memory < 10
    assert still_held <= limit


def test_a_long_backlog_arrives_whole_and_in_order_across_slices(svc_server) -> None:
    """A watch from an old resourceVersion starts with a backlog larger than one slice of writes."""
    api = svc_server.client()
    versions = []
    for index in range(40):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{index}"}, "data": {"k": "x" * 5000}}
        versions.append(api.request("POST", PATH, body=body).json()["metadata"]["resourceVersion"])
    params = {"watch": "1", "resourceVersion": versions[0], "timeoutSeconds": "2"}
    lines = list(svc_server.client(timeout=10.0).stream(PATH, params=params))
    events = [json.loads(line) for line in lines]
    assert [e["object"]["metadata"]["resourceVersion"] for e in events] == versions[1:]
