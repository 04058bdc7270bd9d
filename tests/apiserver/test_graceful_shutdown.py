"""SIGTERM to a real `svc-apiserver` under load: /readyz fails first, requests are served through
`--shutdown-delay-duration`, then refused only with 429 + Retry-After (or a closed connection), and
open watches end with a complete response."""

from __future__ import annotations

import http.client
import json
import signal
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from svc.client.kubeconfig import load_kubeconfig
from svc.client.rest import ssl_context
from svc.testing.harness import RunningServer

DELAY = 4.0
SLOW = 8.0
LOAD_THREADS = 3
MAX_REQUESTS = 5000
TEST_DEADLINE = 40.0
_CLOSED = (ConnectionError, http.client.RemoteDisconnected, http.client.IncompleteRead, ssl.SSLError, OSError)


@dataclass
class Outcomes:
    statuses: list[tuple[float, int, dict[str, str]]] = field(default_factory=list)
    closed: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _connection(server: RunningServer) -> http.client.HTTPSConnection:
    host, port = server.url.removeprefix("https://").rsplit(":", 1)
    return http.client.HTTPSConnection(
        host, int(port), timeout=10, context=ssl_context(load_kubeconfig(server.kubeconfig))
    )


def _load(server: RunningServer, path: str, outcomes: Outcomes, stop: threading.Event) -> None:
    connection = _connection(server)
    deadline = time.monotonic() + TEST_DEADLINE
    for _ in range(MAX_REQUESTS):
        if stop.is_set() or time.monotonic() > deadline:
            break
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            with outcomes.lock:
                outcomes.statuses.append((time.monotonic(), response.status, dict(response.headers)))
            if response.will_close:
                connection.close()
        except ConnectionRefusedError:
            break  # the listener is closed: the server is going away
        except _CLOSED:
            with outcomes.lock:
                outcomes.closed.append(time.monotonic())
            connection.close()
            time.sleep(0.01)
    connection.close()


def _watch(server: RunningServer, result: dict[str, Any]) -> None:
    connection = _connection(server)
    connection.timeout = None
    connection.request("GET", "/api/v1/namespaces?watch=true&timeoutSeconds=120")
    response = connection.getresponse()
    result["status"] = response.status
    lines = 0
    try:
        while response.readline():
            lines += 1
        result["ended"] = "cleanly"
    except _CLOSED as error:
        result["ended"] = f"abruptly: {error!r}"
    result["lines"] = lines
    connection.close()


def _threads(targets: list[Callable[[], None]]) -> list[threading.Thread]:
    threads = [threading.Thread(target=target, daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    return threads


def _slow_get(server: RunningServer, result: dict[str, Any]) -> None:
    connection = _connection(server)
    connection.request("GET", "/api/v1/namespaces/default/configmaps/slow")
    response = connection.getresponse()
    response.read()
    result["status"] = response.status
    connection.close()


def test_sigterm_under_load_refuses_only_with_retry_after_and_ends_watches_cleanly(
    svc_server_process: Callable[..., RunningServer], tmp_path: Path
) -> None:
    # One request that takes SLOW seconds from 1 s after SIGTERM keeps the drain window open past
    # the delay, so new requests meet it.
    faults = tmp_path / "faults.json"
    faults.write_text(json.dumps({"rules": [{"verbs": ["get"], "names": ["slow"], "delay": {"seconds": SLOW}}]}))
    server = svc_server_process(
        f"--shutdown-delay-duration={DELAY:.0f}s",
        "--shutdown-send-retry-after",
        "--shutdown-watch-termination-grace-period=5s",
        f"--fault-config={faults}",
    )
    assert server.process is not None
    outcomes, readiness = Outcomes(), Outcomes()
    watch: dict[str, Any] = {}
    stop = threading.Event()
    watcher = _threads([lambda: _watch(server, watch)])
    loaders = _threads([lambda: _load(server, "/api/v1/namespaces/default", outcomes, stop)] * LOAD_THREADS)
    probe = _threads([lambda: _load(server, "/readyz", readiness, stop)])
    time.sleep(1.0)
    signalled = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    time.sleep(1.0)
    slow: dict[str, Any] = {}
    in_flight = _threads([lambda: _slow_get(server, slow)])
    assert server.process.wait(timeout=TEST_DEADLINE) == 0
    stop.set()
    for thread in [*loaders, *probe, *watcher, *in_flight]:
        thread.join(timeout=10)

    not_ready = [at for at, code, _ in readiness.statuses if code == 500]
    assert not_ready and not_ready[0] < signalled + DELAY, "readyz must fail as soon as the shutdown starts"
    codes = {code for _, code, _ in outcomes.statuses}
    assert codes <= {200, 429}, codes
    served_late = [at for at, code, _ in outcomes.statuses if code == 200 and at > signalled + DELAY / 2]
    assert served_late, "requests are served normally during the shutdown delay"
    assert slow["status"] == 404, "a request in flight when draining starts is answered"
    refusals = [(at, headers) for at, code, headers in outcomes.statuses if code == 429]
    assert refusals, "new requests meet 429 while the in-flight one drains"
    for at, headers in refusals:
        assert at >= signalled + DELAY
        assert headers.get("Retry-After") == "5"
        assert headers.get("Connection") == "close"
    assert all(at >= signalled + DELAY for at in outcomes.closed), "no connection is dropped before the delay"
    assert watch["status"] == 200
    assert watch["ended"] == "cleanly"


def test_without_retry_after_the_listener_closes_after_the_delay(
    svc_server_process: Callable[..., RunningServer],
) -> None:
    server = svc_server_process("--shutdown-delay-duration=1s")
    assert server.process is not None
    outcomes = Outcomes()
    stop = threading.Event()
    loaders = _threads([lambda: _load(server, "/api/v1/namespaces/default", outcomes, stop)] * 2)
    time.sleep(0.5)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=TEST_DEADLINE) == 0
    stop.set()
    for thread in loaders:
        thread.join(timeout=10)
    assert {code for _, code, _ in outcomes.statuses} == {200}
