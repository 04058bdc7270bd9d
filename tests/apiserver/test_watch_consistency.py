"""Property: concurrent writers and list+watch clients; every client's view ends equal to the store,
with no event lost, duplicated or reordered, and resourceVersions that only grow."""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from svc.testing.harness import in_process_server

PATH = "/api/v1/namespaces/default/configmaps"
NAMES = [f"o{index}" for index in range(6)]


class Mirror:
    """A list+watch client that rebuilds the collection from one watch at a time."""

    def __init__(self, server) -> None:
        self.server = server
        self.state: dict[str, tuple[str, str]] = {}
        self.version = 0
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self._stream = None
        self._thread: threading.Thread | None = None

    def list_paged(self, limit: int) -> None:
        client = self.server.client()
        state: dict[str, tuple[str, str]] = {}
        params = {"limit": str(limit)}
        pages_version = None
        while True:
            body = client.request("GET", PATH, params=params).json()
            pages_version = pages_version or body["metadata"]["resourceVersion"]
            if body["metadata"]["resourceVersion"] != pages_version:
                self.errors.append("page with another resourceVersion")
            for item in body["items"]:
                state[item["metadata"]["name"]] = (item["metadata"]["resourceVersion"], item["data"]["v"])
            token = body["metadata"].get("continue")
            if not token:
                break
            params = {"limit": str(limit), "continue": token}
        with self.lock:
            self.state, self.version = state, int(pages_version)

    def start_watch(self) -> None:
        self._stream = self.server.client().stream(PATH, params={"watch": "1", "resourceVersion": str(self.version)})
        self._thread = threading.Thread(target=self._consume, args=(self._stream,), daemon=True)
        self._thread.start()

    def _consume(self, lines) -> None:
        for line in lines:
            event = json.loads(line)
            if event["type"] == "ERROR":
                self.errors.append(f"error event {event}")
                return
            metadata = event["object"]["metadata"]
            version = int(metadata["resourceVersion"])
            with self.lock:
                if version <= self.version:
                    self.errors.append(f"event {version} not after {self.version} (duplicate or reordered)")
                self.version = version
                if event["type"] == "DELETED":
                    if self.state.pop(metadata["name"], None) is None:
                        self.errors.append(f"delete of unknown {metadata['name']}")
                else:
                    self.state[metadata["name"]] = (metadata["resourceVersion"], event["object"]["data"]["v"])

    def disconnect(self) -> None:
        """Drop the watch (as a network failure would); the caller resumes or relists."""
        assert self._stream is not None and self._thread is not None
        self._stream.close()
        self._thread.join(timeout=10)


class WatchConsistency(RuleBasedStateMachine):
    @initialize()
    def start(self) -> None:
        self.directory = tempfile.mkdtemp()
        self.context = in_process_server(Path(self.directory) / "data")
        self.server = self.context.__enter__()
        self.mirrors = [Mirror(self.server) for _ in range(3)]
        for mirror in self.mirrors:
            mirror.list_paged(limit=2)
            mirror.start_watch()
        self.pool = ThreadPoolExecutor(4)

    def teardown(self) -> None:
        if hasattr(self, "pool"):
            for mirror in self.mirrors:
                mirror.disconnect()
            self.pool.shutdown()
            self.context.__exit__(None, None, None)
        if hasattr(self, "directory"):
            shutil.rmtree(self.directory)

    def _write(self, name: str, value: str, delete: bool) -> None:
        client = self.server.client()
        current = client.request("GET", f"{PATH}/{name}")
        if delete:
            if current.status == 200:
                client.request("DELETE", f"{PATH}/{name}")
            return
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": value}}
        if current.status == 404:
            client.request("POST", PATH, body=body)
        else:
            client.request("PUT", f"{PATH}/{name}", body=body)

    @rule(
        writes=st.lists(
            st.tuples(st.sampled_from(NAMES), st.text("abc", min_size=1, max_size=3), st.booleans()),
            min_size=1,
            max_size=8,
        )
    )
    def concurrent_writes(self, writes) -> None:
        list(self.pool.map(lambda write: self._write(*write), writes))

    @precondition(lambda self: hasattr(self, "mirrors"))
    @rule(index=st.integers(0, 2), limit=st.integers(1, 3))
    def relist(self, index: int, limit: int) -> None:
        mirror = self.mirrors[index]
        mirror.disconnect()
        mirror.list_paged(limit=limit)
        mirror.start_watch()

    @precondition(lambda self: hasattr(self, "mirrors"))
    @rule(index=st.integers(0, 2))
    def resume(self, index: int) -> None:
        mirror = self.mirrors[index]
        mirror.disconnect()
        mirror.start_watch()

    def check_final(self) -> None:
        truth_body = self.server.client().request("GET", PATH).json()
        truth = {i["metadata"]["name"]: (i["metadata"]["resourceVersion"], i["data"]["v"]) for i in truth_body["items"]}
        deadline = time.monotonic() + 10
        for mirror in self.mirrors:
            while time.monotonic() < deadline:
                with mirror.lock:
                    if mirror.state == truth:
                        break
                time.sleep(0.02)
            assert mirror.errors == []
            assert mirror.state == truth


class Checked(WatchConsistency):
    def teardown(self) -> None:
        if hasattr(self, "mirrors"):
            self.check_final()
        super().teardown()


TestWatchConsistency = Checked.TestCase
TestWatchConsistency.settings = settings(
    max_examples=8, stateful_step_count=8, deadline=None, suppress_health_check=list(HealthCheck)
)
