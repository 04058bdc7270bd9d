"""`kill -9` of a real `svc-apiserver` while eight clients write, five times over one data directory.

After every restart: each acknowledged write is there with its content (or the content of the one
write that was in flight on that object when the process died), resourceVersions only grow, and a
watch from a revision before the kill either replays every change after it, in order, or says 410
Gone. It never skips silently. Restarts alternate between the watch cache (which starts at the
current revision, so an older watch is 410 as upstream's is) and no watch cache (the watch is
served from the database's log, which still holds that history and must replay it).
"""

from __future__ import annotations

import http.client
import itertools
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer, stop_process
from tests.apiserver.watch_client import WatchReader

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
ROUNDS = 5
WRITERS = 8
_ACKS_BEFORE_KILL = 40
_LOAD_SECONDS = 5.0
_WATCH_SECONDS = 10.0


@dataclass(frozen=True)
class Write:
    name: str
    value: str
    revision: int


@dataclass
class Writer:
    """One client's objects (names start with its index) and what the server told it."""

    index: int
    client: RestClient
    stored: dict[str, Write] = field(default_factory=dict)
    in_flight: dict[str, str] = field(default_factory=dict)
    acknowledged: list[Write] = field(default_factory=list)
    counter: itertools.count[int] = field(default_factory=itertools.count)
    failure: BaseException | None = None

    def run(self, stop: threading.Event) -> None:
        """Thread body: a failed assertion is kept for the test to raise, not lost in the thread."""
        try:
            self._write_until_killed(stop)
        except BaseException as error:
            self.failure = error

    def _write_until_killed(self, stop: threading.Event) -> None:
        """Create and update until the server dies (a connection error) or `stop` is set."""
        chance = random.Random(self.index)
        while not stop.is_set():
            number = next(self.counter)
            value = f"{self.index}-{number}"
            if not self.stored or chance.random() < 0.3:
                name, body, method, path = f"w{self.index}-{number}", {}, "POST", CONFIGMAPS
            else:
                name = chance.choice(sorted(self.stored))
                body = {"resourceVersion": str(self.stored[name].revision)}
                method, path = "PUT", f"{CONFIGMAPS}/{name}"
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {**body, "name": name}, "data": {"v": value}}
            self.in_flight[name] = value
            try:
                response = self.client.request(method, path, body=body)
            except (OSError, http.client.HTTPException):
                return
            assert response.status in (200, 201), response.body
            del self.in_flight[name]
            write = Write(name, value, int(response.json()["metadata"]["resourceVersion"]))
            self.stored[name] = write
            self.acknowledged.append(write)


def _listed(server: RunningServer) -> tuple[dict[str, Write], int]:
    listed = server.client(timeout=10).request("GET", CONFIGMAPS).json()
    found = {
        item["metadata"]["name"]: Write(
            item["metadata"]["name"], item["data"]["v"], int(item["metadata"]["resourceVersion"])
        )
        for item in listed["items"]
    }
    return found, int(listed["metadata"]["resourceVersion"])


def _load_then_kill(server: RunningServer, writers: list[Writer]) -> None:
    stop = threading.Event()
    threads = [threading.Thread(target=writer.run, args=(stop,), daemon=True) for writer in writers]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + _LOAD_SECONDS
    while time.monotonic() < deadline and sum(len(w.acknowledged) for w in writers) < _ACKS_BEFORE_KILL:
        time.sleep(0.01)
    stop_process(server, kill=True)
    stop.set()
    for thread in threads:
        thread.join(timeout=10)
        assert not thread.is_alive()
    for writer in writers:
        if writer.failure is not None:
            raise writer.failure


def _check_survivors(found: dict[str, Write], writers: list[Writer]) -> None:
    """Every acknowledged object holds its last acknowledged content or the in-flight one."""
    for writer in writers:
        for name, write in writer.stored.items():
            assert name in found, f"acknowledged {write} is gone"
            allowed = {write.value, writer.in_flight.get(name)}
            assert found[name].value in allowed, f"{name}: found {found[name]}, acknowledged {write}"
            assert found[name].revision >= write.revision
        for name, value in writer.in_flight.items():
            if name not in writer.stored and name in found:
                assert found[name].value == value


def _check_watch_from(server: RunningServer, after: int, acknowledged: list[Write]) -> str:
    """A watch from `after` replays the acknowledged writes after it in order, or is 410 Gone."""
    expected = {write for write in acknowledged if write.revision > after}
    last = max(write.revision for write in expected)
    try:
        watch = WatchReader(server.client(), CONFIGMAPS, {"resourceVersion": str(after), "timeoutSeconds": "30"})
    except http.client.HTTPException as error:
        if "watch failed with 410" not in str(error):
            raise
        return "gone"
    seen: list[Write] = []
    deadline = time.monotonic() + _WATCH_SECONDS
    while not seen or seen[-1].revision < last:
        event = watch.next(timeout=max(0.1, deadline - time.monotonic()))
        assert event is not None, "the watch ended before replaying what was acknowledged"
        obj: dict[str, Any] = event["object"]
        if event["type"] == "ERROR":
            assert not seen and obj["code"] == 410, event
            return "gone"
        write = Write(obj["metadata"]["name"], obj["data"]["v"], int(obj["metadata"]["resourceVersion"]))
        assert write.revision > after
        assert not seen or write.revision > seen[-1].revision, "events out of order"
        seen.append(write)
    assert expected <= set(seen), f"watch skipped {sorted(expected - set(seen), key=lambda w: w.revision)[:5]}"
    return "replayed"


def test_acknowledged_writes_survive_kill_9_under_load(svc_server_process, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    server = svc_server_process(data_dir=data_dir)
    writers = [Writer(index, server.client(timeout=5)) for index in range(WRITERS)]
    highest = 0
    outcomes: dict[str, list[str]] = {"true": [], "false": []}
    for round_number in range(ROUNDS):
        _, before_load = _listed(server)
        _load_then_kill(server, writers)
        acknowledged = [write for writer in writers for write in writer.acknowledged]
        assert len(acknowledged) >= _ACKS_BEFORE_KILL
        assert min(write.revision for write in acknowledged) > highest, "a revision was reused after restart"
        highest = max(write.revision for write in acknowledged)

        watch_cache = "true" if round_number % 2 else "false"
        server = svc_server_process(f"--watch-cache={watch_cache}", data_dir=data_dir)
        found, listed_at = _listed(server)
        assert listed_at >= highest
        _check_survivors(found, writers)
        outcomes[watch_cache].append(_check_watch_from(server, before_load, acknowledged))

        for writer in writers:
            writer.client = server.client(timeout=5)
            writer.stored = {name: write for name, write in found.items() if name.startswith(f"w{writer.index}-")}
            writer.in_flight.clear()
            writer.acknowledged.clear()
    assert outcomes["false"] == ["replayed"] * 3
    assert len(outcomes["true"]) == 2
