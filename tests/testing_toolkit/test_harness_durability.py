"""In-process test servers commit without fsync; the server program keeps SQLite's full durability."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from svc.storage.sqlite.backend import SqliteBackend

pytestmark = pytest.mark.embedded_store

OFF, FULL = 0, 2


def _synchronous(backend: SqliteBackend) -> int:
    return backend._write_conn.execute("PRAGMA synchronous").fetchone()[0]


def test_an_in_process_server_commits_without_fsync(svc_server) -> None:
    (backend,) = svc_server.server.backends.all()
    assert _synchronous(backend) == OFF


def test_a_backend_opened_as_the_server_program_opens_it_is_durable(tmp_path: Path) -> None:
    async def scenario() -> int:
        backend = SqliteBackend(tmp_path / "state.db")
        await backend.start()
        try:
            return _synchronous(backend)
        finally:
            await backend.close()

    assert asyncio.run(scenario()) == FULL
