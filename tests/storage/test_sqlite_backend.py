"""The SQLite backend keeps etcd's contract: revisions, compare-and-swap, ranges, watch, compaction."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from svc.storage import errors
from svc.storage.sqlite.backend import SqliteBackend


def run(coroutine):
    return asyncio.run(coroutine)


async def _open(path: Path) -> SqliteBackend:
    backend = SqliteBackend(path / "state.db")
    await backend.start()
    return backend


def test_data_and_revision_survive_reopen(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        kv = await backend.create("/a", b"1")
        deleted = await backend.delete("/a", expected_revision=kv.mod_revision)
        await backend.compact(deleted.revision)
        await backend.close()
        reopened = await _open(tmp_path)
        assert await reopened.current_revision() == deleted.revision
        assert (await reopened.create("/b", b"2")).mod_revision == deleted.revision + 1
        await reopened.close()

    run(scenario())


def test_second_process_on_same_database_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = await _open(tmp_path)
        with pytest.raises(errors.BackendUnavailableError):
            await _open(tmp_path)
        await backend.close()

    run(scenario())


class BackendMachine(RuleBasedStateMachine):
    """Random creates, updates and deletes, some concurrent, against a dict model."""

    def __init__(self) -> None:
        super().__init__()
        import tempfile

        self.directory = Path(tempfile.mkdtemp())
        self.loop = asyncio.new_event_loop()
        self.backend = self.loop.run_until_complete(_open(self.directory))
        self.model: dict[str, tuple[bytes, int]] = {}
        self.last_revision = self.loop.run_until_complete(self.backend.current_revision())

    def teardown(self) -> None:
        self.loop.run_until_complete(self.backend.close())
        self.loop.close()
        shutil.rmtree(self.directory)

    def _note(self, revision: int) -> None:
        assert revision > self.last_revision
        self.last_revision = revision

    @rule(
        keys=st.lists(st.sampled_from(["/k/a", "/k/b", "/k/c", "/k/d"]), min_size=1, max_size=4, unique=True),
        value=st.binary(max_size=8),
    )
    def concurrent_writes(self, keys: list[str], value: bytes) -> None:
        async def write(key: str):
            if key in self.model:
                return await self.backend.update(key, value, expected_revision=self.model[key][1])
            return await self.backend.create(key, value)

        async def all_writes():
            return await asyncio.gather(*(write(key) for key in keys))

        results = self.loop.run_until_complete(all_writes())
        for key, kv in zip(keys, results, strict=True):
            self.model[key] = (value, kv.mod_revision)
        self._note(max(kv.mod_revision for kv in results))
        assert len({kv.mod_revision for kv in results}) == len(results)

    @rule(key=st.sampled_from(["/k/a", "/k/b", "/k/c", "/k/d"]))
    def delete(self, key: str) -> None:
        if key not in self.model:
            with pytest.raises(errors.KeyNotFoundError):
                self.loop.run_until_complete(self.backend.delete(key, expected_revision=1))
            return
        event = self.loop.run_until_complete(self.backend.delete(key, expected_revision=self.model[key][1]))
        del self.model[key]
        self._note(event.revision)

    @invariant()
    def range_matches_model(self) -> None:
        page = self.loop.run_until_complete(self.backend.range("/k/", "/k0"))
        assert {kv.key: (kv.value, kv.mod_revision) for kv in page.kvs} == self.model


TestBackendMachine = BackendMachine.TestCase
TestBackendMachine.settings = settings(
    max_examples=25, stateful_step_count=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def test_writes_over_the_request_limit_are_refused_and_not_applied(tmp_path: Path) -> None:
    async def scenario() -> None:
        backend = SqliteBackend(tmp_path / "state.db", max_request_bytes=100)
        await backend.start()
        with pytest.raises(errors.RequestTooLargeError, match="etcdserver: request is too large"):
            await backend.create("/big", b"x" * 100)
        kept = await backend.create("/a", b"small")
        with pytest.raises(errors.RequestTooLargeError):
            await backend.update("/a", b"x" * 100, expected_revision=kept.mod_revision)
        assert await backend.get("/big") is None
        current = await backend.get("/a")
        assert current is not None
        assert current.value == b"small"
        assert await backend.current_revision() == kept.mod_revision
        await backend.close()

    run(scenario())
