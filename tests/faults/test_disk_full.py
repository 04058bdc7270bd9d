"""A full disk: writes fail with SQLite's own `database or disk is full`, as upstream passes an etcd
error through (500, no reason, the backend's message); nothing is half-written; readiness fails
while writes do and comes back by itself once space returns.

The disk is real: the server's data directory is a small tmpfs filled up by a file, so the error
is the kernel's ENOSPC seen through SQLite, not a simulation. Mounting needs root (CI runs as root);
elsewhere these tests skip.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from svc.storage.backend import prefix_end
from svc.storage.errors import BackendUnavailableError
from svc.storage.sqlite.backend import SqliteBackend
from svc.testing.harness import RunningServer, in_process_server
from tests.apiserver.watch_client import WatchReader

pytestmark = pytest.mark.embedded_store

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
FULL = "database or disk is full"
_DISK_SIZE = "16m"


@dataclass
class FullDisk:
    server: RunningServer
    filler: Path

    def fill(self) -> None:
        """Empty the write-ahead log first (a log kept from the start-up writes would take the next
        write without growing a file), then take every free block."""
        running = self.server.server
        assert running is not None
        self.server.call(running.backend.vacuum())
        _fill(self.filler)

    def free(self) -> None:
        self.filler.unlink()


def _fill(filler: Path) -> None:
    """Take every free block of the filesystem: big writes while there is room, then page-sized ones."""
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for chunk in (b"\0" * (1 << 20), b"\0" * 4096):
            for _ in range(10_000):
                try:
                    os.write(descriptor, chunk)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(descriptor)


def _mount(point: Path) -> None:
    point.mkdir()
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={_DISK_SIZE}", "tmpfs", str(point)], capture_output=True, text=True
    )
    if result.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {result.stderr.strip()}")


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[FullDisk]:
    """An in-process server whose data directory is a 16 MiB tmpfs (still with room when yielded)."""
    point = tmp_path / "data"
    _mount(point)
    try:
        with in_process_server(point) as server:
            yield FullDisk(server, point / "filler")
    finally:
        subprocess.run(["umount", "--lazy", str(point)], check=True)


def _configmap(name: str, size: int = 200_000, value: str = "x") -> dict[str, Any]:
    """Large enough that the write-ahead log must grow to take it."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"v": value * size}}


def _readyz(server: RunningServer) -> tuple[int, list[str]]:
    response = server.client().request("GET", "/readyz", params={"verbose": ""})
    return response.status, response.body.decode().splitlines()


def test_write_on_full_disk_is_500_with_sqlite_message_and_one_log_line(disk, caplog) -> None:
    api = disk.server.client()
    disk.fill()
    caplog.clear()
    with caplog.at_level(logging.INFO):
        response = api.request("POST", CONFIGMAPS, body=_configmap("big"))
    assert response.status == 500
    body = response.json()
    assert body["message"] == FULL
    assert body["code"] == 500
    assert body["status"] == "Failure"
    assert "reason" not in body
    mentions = [record for record in caplog.records if FULL in record.getMessage()]
    assert len(mentions) == 1
    assert mentions[0].exc_info is None
    assert not any("rollback" in record.getMessage() for record in caplog.records)


def test_failed_writes_leave_nothing_behind_in_storage_cache_or_watch(disk) -> None:
    api = disk.server.client()
    kept = api.request("POST", CONFIGMAPS, body=_configmap("kept", size=10)).json()
    watch = WatchReader(api, CONFIGMAPS, {"resourceVersion": kept["metadata"]["resourceVersion"]})
    disk.fill()
    assert api.request("POST", CONFIGMAPS, body=_configmap("lost")).status == 500
    changed = {**kept, "data": {"v": "y" * 200_000}}
    assert api.request("PUT", f"{CONFIGMAPS}/kept", body=changed).status == 500

    assert api.request("GET", f"{CONFIGMAPS}/lost").status == 404
    current = api.request("GET", f"{CONFIGMAPS}/kept").json()
    assert current["metadata"]["resourceVersion"] == kept["metadata"]["resourceVersion"]
    assert current["data"] == kept["data"]
    assert _cached(disk.server) == _stored(disk.server)

    disk.free()
    after = api.request("POST", CONFIGMAPS, body=_configmap("after", size=10)).json()
    event = watch.next(timeout=10)
    assert event is not None
    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "after")
    assert int(after["metadata"]["resourceVersion"]) == int(kept["metadata"]["resourceVersion"]) + 1


def test_readyz_fails_while_writes_fail_and_recovers_without_a_write(disk) -> None:
    api = disk.server.client()
    disk.fill()
    assert api.request("POST", CONFIGMAPS, body=_configmap("big")).status == 500
    status, lines = _readyz(disk.server)
    assert status == 500
    assert "[-]store-readiness failed: reason withheld" in lines
    assert api.request("GET", "/livez").status == 200

    disk.free()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _readyz(disk.server)[0] != 200:
        time.sleep(0.1)
    assert _readyz(disk.server)[0] == 200
    assert api.request("POST", CONFIGMAPS, body=_configmap("big")).status == 201


def _cached(server: RunningServer) -> dict[str, Any]:
    """Each ConfigMap's JSON as the watch cache holds it, read on the server's loop."""
    assert server.server is not None
    store = server.server.stores[("", "v1", "configmaps")]
    assert store.cache is not None
    cache, prefix = store.cache, store.prefix("default")

    async def read() -> dict[str, Any]:
        return {key: obj.decode() for key, obj in cache.snapshot(prefix, prefix_end(prefix))}

    return server.call(read())


def _stored(server: RunningServer) -> dict[str, Any]:
    """The same, read from the database."""
    assert server.server is not None
    store = server.server.stores[("", "v1", "configmaps")]
    prefix = store.prefix("default")

    async def read() -> dict[str, Any]:
        return {key: await store.objects.get(key) for key in await _keys(prefix)}

    async def _keys(start: str) -> list[str]:
        assert server.server is not None and server.server.backend is not None
        result = await server.server.backend.range(start, prefix_end(start))
        return [kv.key for kv in result.kvs]

    return server.call(read())


def test_refused_compaction_keeps_the_floor_and_the_history(tmp_path) -> None:
    point = tmp_path / "data"
    _mount(point)
    try:
        asyncio.run(_compact_on_full_disk(point))
    finally:
        subprocess.run(["umount", "--lazy", str(point)], check=True)


async def _compact_on_full_disk(point: Path) -> None:
    backend = SqliteBackend(point / "state.db")
    await backend.start()
    try:
        first = await backend.create("/k", b"v" * 100_000)
        for index in range(3):
            await backend.update("/k", b"%d" % index * 100_000, expected_revision=0)
        _fill(point / "filler")
        with pytest.raises(BackendUnavailableError, match=FULL):
            await backend.compact(first.mod_revision + 2)
        assert await backend.compacted_revision() == 0
        old = await backend.range("/k", "/l", revision=first.mod_revision)
        assert [kv.value for kv in old.kvs] == [b"v" * 100_000]
    finally:
        await backend.close()
