"""Every backend keeps etcd's contract: revisions, compare-and-swap, ranges, watch, compaction.

Each test runs against the embedded SQLite backend and against a real etcd (one per session, emptied
before each test), so the layers above the backend can rely on the same behaviour from both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from svc.storage import errors
from svc.storage.backend import Backend, EventType, Progress
from svc.storage.etcd.backend import EtcdBackend, answers_progress_in_order
from svc.storage.sqlite.backend import SqliteBackend
from svc.testing.etcd import EtcdProcess

Opener = Callable[[], Awaitable[Backend]]


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.fixture(params=["sqlite", "etcd"])
def open_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    if request.param == "sqlite":

        async def open_sqlite() -> Backend:
            backend = SqliteBackend(tmp_path / "state.db")
            await backend.start()
            return backend

        return open_sqlite
    etcd: EtcdProcess = request.getfixturevalue("etcd_session")

    async def open_etcd() -> Backend:
        backend = EtcdBackend([etcd.url])
        await backend.start()
        await _empty(backend)
        return backend

    return open_etcd


async def _empty(backend: EtcdBackend) -> None:
    """Delete every key a previous test left (revisions keep counting, as they would in any etcd)."""
    revision = await backend.current_revision()
    for kv in (await backend.range("\x00", "\x7f")).kvs:
        await backend.delete(kv.key, expected_revision=kv.mod_revision)
    assert await backend.current_revision() >= revision


def test_revisions_grow_and_are_kept_per_key(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        first = await backend.create("/a", b"1")
        second = await backend.update("/a", b"2", expected_revision=first.mod_revision)
        assert second.mod_revision == first.mod_revision + 1
        assert second.create_revision == first.create_revision
        assert await backend.current_revision() == second.mod_revision
        await backend.close()

    run(scenario())


def test_stale_compare_and_swap_is_refused(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        first = await backend.create("/a", b"1")
        await backend.update("/a", b"2", expected_revision=first.mod_revision)
        with pytest.raises(errors.RevisionConflictError):
            await backend.update("/a", b"3", expected_revision=first.mod_revision)
        with pytest.raises(errors.RevisionConflictError):
            await backend.delete("/a", expected_revision=first.mod_revision)
        assert (await backend.get("/a")).value == b"2"
        await backend.close()

    run(scenario())


def test_create_of_live_key_is_refused(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        await backend.create("/a", b"1")
        with pytest.raises(errors.KeyExistsError):
            await backend.create("/a", b"2")
        await backend.close()

    run(scenario())


def test_range_at_old_revision_sees_old_values(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        kv = await backend.create("/p/a", b"old")
        await backend.update("/p/a", b"new", expected_revision=kv.mod_revision)
        await backend.create("/p/b", b"later")
        old = await backend.range("/p/", "/p0", revision=kv.mod_revision)
        assert [(k.key, k.value) for k in old.kvs] == [("/p/a", b"old")]
        await backend.close()

    run(scenario())


def test_range_limit_reports_more_and_count(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        for index in range(5):
            await backend.create(f"/p/{index}", b"x")
        page = await backend.range("/p/", "/p0", limit=2)
        assert [k.key for k in page.kvs] == ["/p/0", "/p/1"]
        assert page.more and page.count == 5
        await backend.close()

    run(scenario())


def test_compacted_revision_is_refused_for_range_and_watch(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        kv = await backend.create("/a", b"1")
        kv = await backend.update("/a", b"2", expected_revision=kv.mod_revision)
        await backend.compact(kv.mod_revision)
        with pytest.raises(errors.CompactedError):
            await backend.range("/", "0", revision=kv.mod_revision - 1)
        events = backend.watch("/", after_revision=kv.mod_revision - 2)
        with pytest.raises(errors.CompactedError):
            await anext(events)
        assert (await backend.get("/a")).value == b"2"
        await backend.close()

    run(scenario())


def test_watch_replays_history_then_follows_live_changes(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        start = await backend.current_revision()
        kv = await backend.create("/w/a", b"1")
        seen = []

        async def consume() -> None:
            async for event in backend.watch("/w/", after_revision=start):
                seen.append((event.type, event.kv.key, event.kv.value, event.revision))
                if len(seen) == 3:
                    return

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.01)
        kv = await backend.update("/w/a", b"2", expected_revision=kv.mod_revision)
        await backend.create("/other", b"ignored")
        deleted = await backend.delete("/w/a", expected_revision=kv.mod_revision)
        await asyncio.wait_for(task, 5)
        assert [s[0] for s in seen] == [EventType.PUT, EventType.PUT, EventType.DELETE]
        assert seen[2][2] == b"2" and seen[2][3] == deleted.revision
        await backend.close()

    run(scenario())


def test_a_quiet_watch_learns_the_current_revision_by_progress(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        # etcd before 3.4.31/3.5.13 may answer a progress request ahead of events still to be sent;
        # this watch has none pending, so even those answer it correctly.
        backend.progress_on_demand = True
        start = await backend.current_revision()
        events = backend.watch("/quiet/", after_revision=start, progress_notify=True)
        assert isinstance(await asyncio.wait_for(anext(events), 5), Progress)
        elsewhere = await backend.create("/loud", b"1")
        current = await backend.current_revision()
        assert current >= elsewhere.mod_revision
        backend.request_progress("/quiet/", current)

        async def progress_up_to_current() -> None:
            async for event in events:
                assert isinstance(event, Progress)
                if event.revision >= current:
                    return

        await asyncio.wait_for(progress_up_to_current(), 5)
        await events.aclose()
        await backend.close()

    run(scenario())


def test_progress_asked_for_a_revision_not_yet_written_comes_once_a_write_reaches_it(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        backend.progress_on_demand = True
        start = await backend.current_revision()
        events = backend.watch("/waiting/", after_revision=start, progress_notify=True)
        assert isinstance(await asyncio.wait_for(anext(events), 5), Progress)
        wanted = start + 2
        backend.request_progress("/waiting/", wanted)

        async def progress_up_to_wanted() -> None:
            async for event in events:
                assert isinstance(event, Progress)
                if event.revision >= wanted:
                    return

        reached = asyncio.create_task(progress_up_to_wanted())
        await asyncio.sleep(0.3)
        assert not reached.done()
        for name in ("a", "b"):
            await backend.create(f"/elsewhere/{name}", b"1")
        await asyncio.wait_for(reached, 5)
        await events.aclose()
        await backend.close()

    run(scenario())


def test_progress_never_runs_ahead_of_replayed_history(open_backend: Opener) -> None:
    async def scenario() -> None:
        backend = await open_backend()
        start = await backend.current_revision()
        written = [(await backend.create(f"/h/{index}", b"x")).mod_revision for index in range(3)]
        events = backend.watch("/h/", after_revision=start, progress_notify=True)
        replayed: list[int] = []

        async def until_current() -> None:
            async for event in events:
                if isinstance(event, Progress):
                    assert all(revision in replayed for revision in written if revision <= event.revision)
                    continue
                replayed.append(event.revision)
                if len(replayed) == len(written):
                    return
                backend.request_progress("/h/", await backend.current_revision())

        await asyncio.wait_for(until_current(), 5)
        assert replayed == written
        await events.aclose()
        await backend.close()

    run(scenario())


def test_progress_reaches_a_reader_who_asked_while_the_watch_replayed_history(open_backend: Opener) -> None:
    """etcd drops a progress request that reaches a watch still replaying; the reader gets its report all
    the same (before, the stream waited for that answer forever and a consistent read timed out)."""

    async def scenario() -> None:
        backend = await open_backend()
        backend.progress_on_demand = True
        start = await backend.current_revision()
        for index in range(3):
            await backend.create(f"/replayed/{index}", b"x")
        events = backend.watch("/replayed/", after_revision=start, progress_notify=True)
        first = await asyncio.wait_for(anext(events), 5)
        wanted = (await backend.create("/other", b"1")).mod_revision
        backend.request_progress("/replayed/", wanted)

        async def progress_up_to_wanted() -> None:
            async for event in events:
                if isinstance(event, Progress) and event.revision >= wanted:
                    return

        assert not isinstance(first, Progress) or first.revision < wanted
        await asyncio.wait_for(progress_up_to_wanted(), 5)
        await events.aclose()
        await backend.close()

    run(scenario())


@pytest.mark.parametrize(
    ("version", "in_order"),
    [("3.4.23", False), ("3.4.31", True), ("3.5.1", False), ("3.5.13", True), ("3.6.0", True), ("x", False)],
)
def test_progress_requests_are_trusted_only_where_etcd_answers_them_in_order(version: str, in_order: bool) -> None:
    assert answers_progress_in_order(version) is in_order
