"""Twenty clients racing on one object: optimistic concurrency loses no increment, and a name is
created once.

The server is a real `svc-apiserver` process, so the clients (threads here) do not share its
interpreter and really overlap with it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from svc.testing.harness import RunningServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
CLIENTS = 20
INCREMENTS = 5
_SECONDS = 60.0


def _run_together(count: int, work: Callable[[int, threading.Barrier], Any]) -> list[Any]:
    """Start `count` threads that pass a barrier together; their results, in thread order."""
    barrier = threading.Barrier(count, timeout=30)
    results: list[Any] = [None] * count
    failures: list[BaseException] = []

    def run(index: int) -> None:
        try:
            results[index] = work(index, barrier)
        except BaseException as error:
            failures.append(error)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(index,), daemon=True) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=_SECONDS + 30)
        assert not thread.is_alive()
    if failures:
        raise failures[0]
    return results


def _connected(server: RunningServer) -> Any:
    """A client whose TLS connection is already up, so the racing requests leave together."""
    api = server.client(timeout=30)
    assert api.request("GET", "/readyz").status == 200
    return api


def _counter(value: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "counter"}, "data": {"n": str(value)}}


def test_optimistic_increments_lose_nothing(svc_server_process) -> None:
    server: RunningServer = svc_server_process()
    assert server.client().request("POST", CONFIGMAPS, body=_counter(0)).status == 201

    def increment(_: int, barrier: threading.Barrier) -> tuple[int, int]:
        """Returns (successful PUTs, 409s met)."""
        api = _connected(server)
        done = conflicts = 0
        barrier.wait()
        deadline = time.monotonic() + _SECONDS
        while done < INCREMENTS and time.monotonic() < deadline:
            current = api.request("GET", f"{CONFIGMAPS}/counter").json()
            current["data"]["n"] = str(int(current["data"]["n"]) + 1)
            response = api.request("PUT", f"{CONFIGMAPS}/counter", body=current)
            if response.status == 409:
                assert response.json()["reason"] == "Conflict"
                conflicts += 1
                continue
            assert response.status == 200, response.body
            done += 1
        return done, conflicts

    results = _run_together(CLIENTS, increment)
    successes = sum(done for done, _ in results)
    final = server.client().request("GET", f"{CONFIGMAPS}/counter").json()
    assert int(final["data"]["n"]) == successes == CLIENTS * INCREMENTS
    assert sum(conflicts for _, conflicts in results) > 0, "the clients never raced"


def test_concurrent_creates_of_one_name_make_one_object(svc_server_process) -> None:
    server: RunningServer = svc_server_process()

    def create(index: int, barrier: threading.Barrier) -> tuple[int, dict[str, Any]]:
        api = _connected(server)
        body = _counter(index)
        barrier.wait()
        response = api.request("POST", CONFIGMAPS, body=body)
        return response.status, response.json()

    results = _run_together(CLIENTS, create)
    assert Counter(status for status, _ in results) == {201: 1, 409: CLIENTS - 1}
    winner = next(body for status, body in results if status == 201)
    for status, body in results:
        if status == 409:
            assert body["reason"] == "AlreadyExists"
            assert body["message"] == 'configmaps "counter" already exists'
    stored = server.client().request("GET", f"{CONFIGMAPS}/counter").json()
    assert stored["data"] == winner["data"]
    assert stored["metadata"]["uid"] == winner["metadata"]["uid"]
