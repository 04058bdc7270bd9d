"""A data directory written with the earlier key layout (`/registry/<group, or core>/<resource>/...`)
is moved to upstream's at start: every key in one transaction, revisions and values kept."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import orjson
import pytest

from svc.storage.sqlite.backend import SqliteBackend
from svc.testing.harness import in_process_server

pytestmark = pytest.mark.embedded_store


def _configmap(name: str, namespace: str, value: str) -> bytes:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}}
    return orjson.dumps({**obj, "data": {"k": value}})


def _namespace(name: str) -> bytes:
    return orjson.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})


def _write_earlier_layout(database: Path) -> dict[str, int]:
    """What a release before upstream's layout left: a namespace and a ConfigMap written twice."""

    async def write() -> dict[str, int]:
        backend = SqliteBackend(database)
        await backend.start()
        try:
            await backend.create("/registry/core/namespaces/earlier", _namespace("earlier"))
            created = await backend.create("/registry/core/configmaps/earlier/kept", _configmap("kept", "earlier", "1"))
            updated = await backend.update(
                "/registry/core/configmaps/earlier/kept",
                _configmap("kept", "earlier", "2"),
                expected_revision=created.mod_revision,
            )
            return {"created": created.mod_revision, "updated": updated.mod_revision}
        finally:
            await backend.close()

    return asyncio.run(write())


def test_a_server_started_on_the_earlier_layout_serves_its_objects_at_their_versions(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    revisions = _write_earlier_layout(data_dir / "state.db")
    with in_process_server(data_dir) as server:
        client = server.client()
        got = client.request("GET", "/api/v1/namespaces/earlier/configmaps/kept")
        assert got.status == 200
        assert got.json()["data"] == {"k": "2"}
        assert got.json()["metadata"]["resourceVersion"] == str(revisions["updated"])
        assert client.request("GET", "/api/v1/namespaces/earlier").status == 200
        listed = client.request("GET", "/api/v1/namespaces/earlier/configmaps").json()["items"]
        assert [item["metadata"]["name"] for item in listed] == ["kept"]
        with sqlite3.connect(data_dir / "state.db") as conn:
            keys = {key for (key,) in conn.execute("SELECT key FROM log")}
            history = conn.execute(
                "SELECT revision FROM log WHERE key = '/registry/configmaps/earlier/kept' ORDER BY revision"
            ).fetchall()
    assert not [key for key in keys if key.startswith("/registry/core/")]
    assert [revision for (revision,) in history] == [revisions["created"], revisions["updated"]]


def test_a_key_held_in_both_layouts_keeps_the_newer_write(tmp_path: Path) -> None:
    database = tmp_path / "state.db"
    renames = {"/registry/core/configmaps/": "/registry/configmaps/"}

    async def scenario() -> None:
        backend = SqliteBackend(database)
        await backend.start()
        await backend.create("/registry/core/configmaps/ns/older-there", b"earlier")
        await backend.create("/registry/configmaps/ns/older-there", b"now")
        await backend.create("/registry/configmaps/ns/newer-there", b"now")
        await backend.create("/registry/core/configmaps/ns/newer-there", b"earlier")
        await backend.close()
        moved = SqliteBackend(database, renames=renames)
        await moved.start()
        try:
            found = await moved.range("/registry/", "/registry0")
            assert {kv.key: kv.value for kv in found.kvs} == {
                "/registry/configmaps/ns/older-there": b"now",
                "/registry/configmaps/ns/newer-there": b"earlier",
            }
        finally:
            await moved.close()

    asyncio.run(scenario())
