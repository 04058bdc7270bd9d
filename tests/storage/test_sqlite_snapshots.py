"""Snapshots of the SQLite backend: the online backup, a restore that never reuses a revision,
the revision log and vacuum."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from svc.storage import errors
from svc.storage.sqlite.backend import SqliteBackend
from svc.storage.writer import writing_as


async def _open(path: Path) -> SqliteBackend:
    backend = SqliteBackend(path / "state.db")
    await backend.start()
    return backend


def test_restore_returns_the_saved_keys_with_revisions_past_the_current_one(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        kept = await backend.create("/a", b"1")
        await backend.save_snapshot(tmp_path / "snap.db")
        await backend.update("/a", b"2", expected_revision=kept.mod_revision)
        await backend.create("/b", b"3")
        before = await backend.current_revision()
        after = await backend.restore_snapshot(tmp_path / "snap.db")
        restored = await backend.get("/a")
        assert restored is not None and restored.value == b"1"
        assert restored.mod_revision > before
        assert await backend.get("/b") is None
        assert after > before and await backend.current_revision() == after
        created = await backend.create("/c", b"4")
        assert created.mod_revision == after + 1
        await backend.close()

    asyncio.run(scenario())


def test_restore_survives_a_restart(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        await backend.create("/a", b"1")
        await backend.save_snapshot(tmp_path / "snap.db")
        await backend.create("/b", b"2")
        revision = await backend.restore_snapshot(tmp_path / "snap.db")
        await backend.close()
        reopened = await _open(tmp_path)
        assert await reopened.current_revision() == revision
        assert [kv.key for kv in (await reopened.range("/", "0")).kvs] == ["/a"]
        await reopened.close()

    asyncio.run(scenario())


def test_a_watch_open_across_a_restore_ends_as_compacted(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        await backend.save_snapshot(tmp_path / "snap.db")
        events = backend.watch("/", after_revision=await backend.current_revision())
        first = asyncio.ensure_future(anext(events))
        await asyncio.sleep(0)
        await backend.restore_snapshot(tmp_path / "snap.db")
        with pytest.raises(errors.CompactedError):
            await asyncio.wait_for(first, 5)
        await backend.close()

    asyncio.run(scenario())


def test_a_file_that_is_not_a_snapshot_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        await backend.create("/a", b"1")
        revision = await backend.current_revision()
        junk = tmp_path / "junk.db"
        junk.write_bytes(b"not a database" * 100)
        with pytest.raises(ValueError, match="is not a snapshot"):
            await backend.restore_snapshot(junk)
        assert await backend.current_revision() == revision
        assert (await backend.get("/a")) is not None
        await backend.close()

    asyncio.run(scenario())


def test_history_lists_each_change_with_its_kind(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        start = await backend.current_revision()
        created = await backend.create("/a", b"1")
        await backend.update("/a", b"2", expected_revision=created.mod_revision)
        deleted = await backend.delete("/a", expected_revision=created.mod_revision + 1)
        changes = await backend.history(start, deleted.revision, 10)
        assert [(c.revision, c.deleted, bool(c.prev_revision)) for c in changes] == [
            (created.mod_revision, False, False),
            (created.mod_revision + 1, False, True),
            (deleted.revision, True, True),
        ]
        assert len(await backend.history(start, deleted.revision, 2)) == 2
        await backend.close()

    asyncio.run(scenario())


def test_history_names_the_writer_of_each_change(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        start = await backend.current_revision()
        with writing_as("alice"):
            created = await backend.create("/a", b"1")
        with writing_as("bob"):
            await backend.delete("/a", expected_revision=created.mod_revision)
        await backend.create("/b", b"2")
        changes = await backend.history(start, await backend.current_revision(), 10)
        assert [(c.key, c.writer) for c in changes] == [("/a", "alice"), ("/a", "bob"), ("/b", None)]
        await backend.close()

    asyncio.run(scenario())


def _drop_writers(database: Path) -> None:
    """Make `database` as a server made it before the log kept its writers."""
    connection = sqlite3.connect(database)
    connection.execute("ALTER TABLE log DROP COLUMN writer")
    connection.commit()
    connection.close()


def test_a_database_from_before_writers_were_kept_gains_the_column(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        await backend.create("/old", b"1")
        await backend.close()
        _drop_writers(tmp_path / "state.db")
        backend = await _open(tmp_path)
        with writing_as("alice"):
            await backend.create("/new", b"2")
        changes = await backend.history(0, await backend.current_revision(), 10)
        assert [(c.key, c.writer) for c in changes] == [("/old", None), ("/new", "alice")]
        await backend.close()

    asyncio.run(scenario())


def test_a_snapshot_from_before_writers_were_kept_restores_without_them(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        with writing_as("alice"):
            await backend.create("/a", b"1")
        await backend.save_snapshot(tmp_path / "snap.db")
        _drop_writers(tmp_path / "snap.db")
        revision = await backend.restore_snapshot(tmp_path / "snap.db")
        changes = await backend.history(0, revision, 10)
        assert [(c.key, c.writer) for c in changes] == [("/a", None)]
        await backend.close()

    asyncio.run(scenario())


def test_vacuum_shrinks_the_files_after_compaction(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        kv = await backend.create("/a", b"x" * 100_000)
        for _ in range(20):
            kv = await backend.update("/a", b"x" * 100_000, expected_revision=kv.mod_revision)
        await backend.compact(kv.mod_revision)
        before, after = await backend.vacuum()
        assert after < before
        await backend.close()

    asyncio.run(scenario())
