"""The embedded backend: the revisioned key-value interface over one SQLite file.

One writer thread owns the write connection. Mutations queue up while it commits, and the next
transaction takes all of them (group commit): single-row commits are bound by fsync, batches are not.
Each mutation's compare-and-swap is checked inside the transaction against the rows earlier
mutations of the same batch wrote, so batching never changes the outcome. A mutation is
acknowledged only after its transaction commits; its events are published to watchers, in revision
order, before the acknowledgement, so a client that saw its write acknowledged finds it in any
watch started afterwards.

Reads use their own connections (WAL lets them run beside the writer): point reads run on the event
loop (a lookup costs less than a thread hop), ranges on a reader thread.

A transaction that SQLite refuses (a full disk, an I/O error) fails every mutation of its batch with
SQLite's own message and leaves nothing behind: the rows roll back, the revision and compaction
floor stay where they were, and no event is published, so the watch cache keeps agreeing with the
file. The writer stays up; until a transaction commits again `check_writes` reports the failure.
It probes on each call, so readiness returns by itself once space is back: first by reserving room
on the filesystem for as much as the failed batch carried (the write-ahead log keeps the blocks a
failed transaction took, so a one-row commit alone would pass on a disk that is still full), then
with a one-row commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import sqlite3
import threading
from collections import deque
from collections.abc import AsyncIterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from svc.private_files import open_private, tighten
from svc.storage import errors
from svc.storage.backend import Event, EventType, KeyValue, Progress, RangeResult, prefix_end
from svc.storage.sqlite import schema
from svc.storage.writer import current_writer

_REPLAY_PAGE = 1000
_COMPACT_CHUNK = 5000
# etcd's default `--max-request-bytes` (1.5 MiB). etcd measures its whole encoded request; key plus
# value is that within a few dozen bytes, and it keeps objects that etcd would refuse out of SQLite too.
MAX_REQUEST_BYTES = 1536 * 1024

_PROBE_MIN = 64 << 10
_PROBE_MAX = 16 << 20

log = logging.getLogger(__name__)


class _Restored:
    """Queued to every watch when a snapshot replaced the database: its history is gone."""


_Item = Event | Progress | _Restored | None


class _Feed:
    """What one watch has yet to read, in order; filled by the backend and read by the watch on one loop.
    An asyncio.Queue would do, but it asks for the running loop at every wait (a getpid system call on
    Python 3.11), and a server holds a watch per resource."""

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._items: deque[_Item] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: _Item) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> _Item:
        while not self._items:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


@dataclass(eq=False)
class _Subscription:
    start: str
    end: str
    progress: bool
    queue: _Feed
    marked: int = 0
    """The last revision a progress mark reported to this watch."""
    wanted: int = 0
    """A revision asked for that no commit had reached yet: marked once one does."""


_RESTORED = _Restored()


@dataclass(frozen=True, slots=True)
class Change:
    """One row of the revision log, for inspection: `prev_revision` is 0 for a creation."""

    revision: int
    key: str
    deleted: bool
    create_revision: int
    prev_revision: int
    value: bytes
    writer: str | None
    """The user whose request made the change; None for the server's own writes."""


@dataclass(frozen=True)
class _WriteFailure:
    message: str
    size: int
    """Bytes of values the failed batch carried: room to find before calling the disk writable."""


@dataclass
class _Op:
    kind: str
    key: str
    value: bytes = b""
    expected: int = 0
    future: asyncio.Future[Any] | None = None
    writer: str | None = None


class SqliteBackend:
    progress_on_demand = True
    in_process = True

    def __init__(
        self,
        path: str | Path,
        *,
        max_request_bytes: int = MAX_REQUEST_BYTES,
        renames: Mapping[str, str] | None = None,
        durable: bool = True,
    ) -> None:
        """`renames` maps key prefixes of an earlier layout to their prefixes now: keys found under one
        are moved at start, in one transaction, before anything reads them. Without `durable`, commits
        skip fsync (test servers: see `Options.store_durable`)."""
        self._path = str(path)
        self._durable = durable
        self._max_request_bytes = max_request_bytes
        self._renames = dict(renames or {})
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="sqlite-writer")
        self._readers = ThreadPoolExecutor(2, thread_name_prefix="sqlite-reader")
        self._local = threading.local()
        self._write_conn: sqlite3.Connection | None = None
        self._pending: deque[_Op] = deque()
        self._wakeup = asyncio.Event()
        self._writer_task: asyncio.Task[None] | None = None
        self._subscriptions: set[_Subscription] = set()
        self._wanting: set[_Subscription] = set()
        """Watches asked to report a revision not yet committed (`request_progress`)."""
        self._revision = 0
        self._published = 0
        self._compacted = 0
        self._lock_file: Any = None
        self._closed = False
        self._write_failure: _WriteFailure | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._lock_file = _lock(self._path)
        await self._loop.run_in_executor(self._writer, self._open_writer)
        self._published = self._revision
        self._wakeup = asyncio.Event()
        self._writer_task = asyncio.create_task(self._write_loop(), name="sqlite-writer")

    def _open_writer(self) -> None:
        _make_private(self._path)
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        for pragma in schema.PRAGMAS:
            conn.execute(pragma)
        if not self._durable:
            conn.execute(schema.NOT_DURABLE)
        for statement in schema.CREATE:
            conn.execute(statement)
        if ("writer",) not in conn.execute(schema.LOG_COLUMNS).fetchall():
            conn.execute(schema.ADD_WRITER)
        if self._renames:
            moved = _move_prefixes(conn, self._renames)
            if moved:
                log.warning("moved %d stored revisions from the earlier key layout to upstream's", moved)
        meta = dict(conn.execute(schema.READ_META).fetchall())
        self._revision = meta["revision"]
        self._compacted = meta["compacted"]
        self._write_conn = conn

    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA query_only=1")
            conn.execute("PRAGMA cache_size=-32768")
            self._local.conn = conn
        return conn

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._writer_task is not None:
            self._writer_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer_task
        for op in self._pending:
            if op.future is not None and not op.future.done():
                op.future.set_exception(errors.BackendUnavailableError("storage is shutting down"))
        for subscription in self._subscriptions:
            subscription.queue.put_nowait(None)
        if self._write_conn is not None:
            conn, self._write_conn = self._write_conn, None
            await asyncio.get_running_loop().run_in_executor(self._writer, conn.close)
        self._writer.shutdown(wait=True)
        self._readers.shutdown(wait=True)
        if self._lock_file is not None:
            self._lock_file.close()

    # -- reads -------------------------------------------------------------------------------
    async def current_revision(self) -> int:
        return self._published

    def request_progress(self, prefix: str, revision: int) -> None:
        """Have the progress-notifying watches of `prefix` report the current revision once it reaches
        `revision`. Marks go only where a reader waits, not to every watch on every commit: a server
        holds a watch per resource, and waking them all cost every create a few percent of its CPU."""
        for subscription in self._subscriptions:
            if subscription.start != prefix or not subscription.progress:
                continue
            if revision <= self._published:
                self._mark(subscription)
            else:
                subscription.wanted = max(subscription.wanted, revision)
                self._wanting.add(subscription)

    def _mark(self, subscription: _Subscription) -> None:
        if subscription.marked < self._published:
            subscription.marked = self._published
            subscription.queue.put_nowait(Progress(self._published))

    async def compacted_revision(self) -> int:
        return self._compacted

    async def get(self, key: str) -> KeyValue | None:
        self._check_open()
        row = self._reader().execute(schema.GET_LIVE, (key,)).fetchone()
        return None if row is None else KeyValue(row[0], row[1], row[2], row[3])

    async def range(self, start: str, end: str, *, limit: int = 0, revision: int = 0) -> RangeResult:
        self._check_open()
        current = self._published
        if revision and revision < current:
            if revision <= self._compacted:
                raise errors.CompactedError(revision, self._compacted)
        elif revision > current:
            raise errors.FutureRevisionError(revision, current)
        else:
            revision = 0
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, self._range, start, end, limit, revision)

    def _range(self, start: str, end: str, limit: int, revision: int) -> RangeResult:
        conn = self._reader()
        fetch = limit + 1 if limit else -1
        conn.execute("BEGIN")
        try:
            at = revision or conn.execute(schema.READ_REVISION).fetchone()[0]
            if revision:
                rows = conn.execute(schema.RANGE_AT, (start, end, revision, fetch)).fetchall()
            else:
                rows = conn.execute(schema.RANGE_LIVE, (start, end, fetch)).fetchall()
            more = bool(limit) and len(rows) > limit
            if more:
                rows = rows[:limit]
                if revision:
                    count = conn.execute(schema.COUNT_AT, (start, end, revision)).fetchone()[0]
                else:
                    count = conn.execute(schema.COUNT_LIVE, (start, end)).fetchone()[0]
            else:
                count = len(rows)
        finally:
            conn.execute("COMMIT")
        return RangeResult([KeyValue(r[0], r[1], r[2], r[3]) for r in rows], at, more, count)

    # -- writes ------------------------------------------------------------------------------
    async def create(self, key: str, value: bytes) -> KeyValue:
        return await self._submit(_Op("create", key, value, writer=current_writer()))

    async def update(self, key: str, value: bytes, *, expected_revision: int) -> KeyValue:
        return await self._submit(_Op("update", key, value, expected_revision, writer=current_writer()))

    async def delete(self, key: str, *, expected_revision: int) -> Event:
        return await self._submit(_Op("delete", key, b"", expected_revision, writer=current_writer()))

    async def compact(self, revision: int) -> None:
        await self._submit(_Op("compact", "", b"", revision))

    async def check_writes(self) -> None:
        """Raises while transactions fail. Each call then probes, so the check recovers as soon as
        the disk takes writes again, without waiting for a client's write."""
        failure = self._write_failure
        if failure is None:
            return
        probe = self._path + ".probe"
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._writer, _reserve, probe, failure.size)
        except OSError:
            raise errors.BackendUnavailableError(failure.message) from None
        await self._submit(_Op("probe", ""))

    async def _submit(self, op: _Op) -> Any:
        self._check_open()
        if len(op.key) + len(op.value) > self._max_request_bytes:
            raise errors.RequestTooLargeError()
        # the writer's loop, kept at start: asking asyncio for the running loop is a getpid system call
        # on Python 3.11, once per write
        assert self._loop is not None, "storage is not started"
        op.future = self._loop.create_future()
        self._pending.append(op)
        self._wakeup.set()
        return await op.future

    def _check_open(self) -> None:
        if self._closed:
            raise errors.BackendUnavailableError("storage is closed")

    async def _write_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._pending:
                batch = list(self._pending)
                self._pending.clear()
                try:
                    outcomes, events, wrote = await loop.run_in_executor(self._writer, self._apply, batch)
                except sqlite3.Error as error:
                    self._write_failure = _WriteFailure(str(error), sum(len(op.value) for op in batch))
                    outcomes, events = [errors.BackendUnavailableError(str(error))] * len(batch), []
                else:
                    if wrote and self._write_failure is not None:
                        log.info("storage writes succeed again (they failed with: %s)", self._write_failure.message)
                        self._write_failure = None
                self._publish(events)
                for op, outcome in zip(batch, outcomes, strict=True):
                    if op.future is None or op.future.done():
                        continue
                    if isinstance(outcome, BaseException):
                        op.future.set_exception(outcome)
                    else:
                        op.future.set_result(outcome)

    def _apply(self, batch: list[_Op]) -> tuple[list[Any], list[Event], bool]:
        """Run one transaction for the whole batch (writer thread); also says whether it wrote
        anything (a batch of refused compare-and-swaps commits without touching the disk). State
        kept outside the database changes only after the commit, so a refused transaction leaves
        no trace."""
        conn = self._write_conn
        assert conn is not None
        revision = self._revision
        compacted = self._compacted
        outcomes: list[Any] = []
        events: list[Event] = []
        wrote = False
        conn.execute("BEGIN IMMEDIATE")
        try:
            for op in batch:
                if op.kind == "compact":
                    outcome = _compact(conn, op.expected, revision, compacted)
                    if outcome is None:
                        compacted, wrote = op.expected, True
                    outcomes.append(outcome)
                    continue
                if op.kind == "probe":
                    conn.execute(schema.WRITE_REVISION, (revision,))
                    outcomes.append(None)
                    wrote = True
                    continue
                row = conn.execute(schema.GET_LIVE, (op.key,)).fetchone()
                prev = None if row is None else KeyValue(row[0], row[1], row[2], row[3])
                failure = _check(op, prev)
                if failure is not None:
                    outcomes.append(failure)
                    continue
                revision += 1
                event = _mutate(conn, op, prev, revision)
                events.append(event)
                outcomes.append(event if op.kind == "delete" else event.kv)
            if events:
                conn.execute(schema.WRITE_REVISION, (revision,))
                wrote = True
            conn.execute("COMMIT")
        except BaseException:
            # SQLite rolls some failures (a full disk among them) back by itself; a second
            # rollback would only add "cannot rollback - no transaction is active".
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._revision = revision
        self._compacted = compacted
        return outcomes, events, wrote

    def _publish(self, events: list[Event]) -> None:
        for event in events:
            key = event.kv.key
            for subscription in self._subscriptions:
                if subscription.start <= key < subscription.end:
                    subscription.queue.put_nowait(event)
            self._published = max(self._published, event.revision)
        if self._wanting:
            for subscription in [wanting for wanting in self._wanting if wanting.wanted <= self._published]:
                self._wanting.discard(subscription)
                subscription.wanted = 0
                self._mark(subscription)

    # -- watch -------------------------------------------------------------------------------
    async def watch(
        self, prefix: str, *, after_revision: int, progress_notify: bool = False
    ) -> AsyncIterator[Event | Progress]:
        self._check_open()
        loop = asyncio.get_running_loop()
        subscription = _Subscription(prefix, prefix_end(prefix), progress_notify, _Feed(loop))
        self._subscriptions.add(subscription)
        try:
            if after_revision < self._compacted:
                raise errors.CompactedError(after_revision, self._compacted)
            last, upto = after_revision, self._published
            while last < upto:
                page = await loop.run_in_executor(
                    self._readers, self._changes, last, upto, subscription.start, subscription.end
                )
                for event in page:
                    yield event
                    last = event.revision
                if len(page) < _REPLAY_PAGE:
                    break
            if progress_notify:
                yield Progress(upto)
            while True:
                event = await subscription.queue.get()
                if event is None:
                    raise errors.BackendUnavailableError("storage is closed")
                if isinstance(event, _Restored):
                    raise errors.CompactedError(last, self._compacted)
                if event.revision > last:
                    last = event.revision
                    yield event
        finally:
            self._subscriptions.discard(subscription)
            self._wanting.discard(subscription)

    # -- snapshots and inspection ----------------------------------------------------------------
    async def save_snapshot(self, path: Path) -> int:
        """Copy the whole database to `path` with SQLite's online backup; returns the revision it
        holds. It runs on the writer thread, so no transaction lands half-way through the copy."""
        self._check_open()
        try:
            return await asyncio.get_running_loop().run_in_executor(self._writer, self._save, path)
        except (sqlite3.Error, OSError) as error:
            raise errors.BackendUnavailableError(f"could not save the snapshot: {error}") from None

    def _save(self, path: Path) -> int:
        conn = self._write_conn
        assert conn is not None
        staging = path.with_name(path.name + ".part")
        os.close(open_private(staging))
        target = sqlite3.connect(staging)
        try:
            conn.backup(target)
        finally:
            target.close()
        os.replace(staging, path)
        return self._revision

    async def restore_snapshot(self, path: Path) -> int:
        """Replace the database with a snapshot; returns the new current revision.

        Every revision of the snapshot is moved past the current one, so a resourceVersion a client
        saw before never names another state afterwards, and the history before the restore counts
        as compacted: every watch ends with a compaction error (clients see 410 Gone and relist).
        Raises ValueError when `path` is not a snapshot; the database is then untouched."""
        self._check_open()
        loop = asyncio.get_running_loop()
        try:
            revision = await loop.run_in_executor(self._writer, self._restore, path)
        except sqlite3.Error as error:
            raise errors.BackendUnavailableError(f"could not restore the snapshot: {error}") from None
        self._published = revision
        for subscription in self._subscriptions:
            subscription.queue.put_nowait(_RESTORED)
        return revision

    def _restore(self, path: Path) -> int:
        conn = self._write_conn
        assert conn is not None
        staged = sqlite3.connect("file::memory:", uri=True, isolation_level=None)
        try:
            for statement in schema.CREATE:
                staged.execute(statement)
            try:
                staged.execute("ATTACH ? AS snapshot", (f"file:{quote(str(path))}?mode=ro",))
                meta = dict(staged.execute(schema.READ_SNAPSHOT_META).fetchall())
                offset = max(self._revision, meta["revision"])
                columns = staged.execute(schema.SNAPSHOT_LOG_COLUMNS).fetchall()
                writer = "writer" if ("writer",) in columns else "NULL"
                staged.execute("BEGIN")
                staged.execute(schema.STAGE_RESTORE_LOG.format(writer=writer), (offset,))
                staged.execute(schema.STAGE_RESTORE_LIVE, (offset,))
                revision = meta["revision"] + offset
                compacted = offset + max(meta["compacted"], 1)
                staged.execute(schema.WRITE_REVISION, (revision,))
                staged.execute(schema.WRITE_COMPACTED, (compacted,))
                staged.execute("COMMIT")
                staged.execute("DETACH snapshot")
            except (sqlite3.DatabaseError, KeyError) as error:
                raise ValueError(f"{path.name} is not a snapshot of this store: {error}") from None
            staged.backup(conn)
        finally:
            staged.close()
        self._revision, self._compacted = revision, compacted
        return revision

    async def history(self, after: int, upto: int, limit: int) -> list[Change]:
        """The log rows with revisions in (after, upto], oldest first, at most `limit`; rows that
        compaction removed are absent (a deletion's row always stays)."""
        self._check_open()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, self._history, after, upto, limit)

    def _history(self, after: int, upto: int, limit: int) -> list[Change]:
        rows = self._reader().execute(schema.HISTORY, (after, upto, limit)).fetchall()
        return [Change(r[0], r[1], bool(r[4]), r[2], r[3], r[5], r[6]) for r in rows]

    async def vacuum(self) -> tuple[int, int]:
        """Rebuild the file without the pages compaction freed and empty the write-ahead log;
        returns the bytes of database plus log before and after."""
        self._check_open()
        try:
            return await asyncio.get_running_loop().run_in_executor(self._writer, self._vacuum)
        except sqlite3.Error as error:
            raise errors.BackendUnavailableError(f"could not vacuum: {error}") from None

    def _vacuum(self) -> tuple[int, int]:
        conn = self._write_conn
        assert conn is not None
        before = self._disk_bytes()
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return before, self._disk_bytes()

    async def storage_size(self) -> tuple[str, int]:
        return "sqlite", await asyncio.get_running_loop().run_in_executor(self._readers, self._disk_bytes)

    def _disk_bytes(self) -> int:
        files = (Path(self._path + suffix) for suffix in ("", "-wal"))
        return sum(file.stat().st_size for file in files if file.exists())

    def _changes(self, after: int, upto: int, start: str, end: str) -> list[Event]:
        rows = self._reader().execute(schema.CHANGES_AFTER, (after, upto, start, end, _REPLAY_PAGE))
        return [_event_from_row(row) for row in rows.fetchall()]


def _move_prefixes(conn: sqlite3.Connection, renames: Mapping[str, str]) -> int:
    """Move every key under an old prefix to its new one, revisions and values unchanged, all in one
    transaction (a crash leaves the old layout whole, moved again at the next start). Returns how many
    log rows moved. Where a key is held under both prefixes (a server of the new layout started on the
    old data), the newer write stays live."""
    moved = 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        for old, new in renames.items():
            old_end, new_end = prefix_end(old), prefix_end(new)
            if conn.execute(schema.ANY_UNDER, (old, old_end)).fetchone() is None:
                continue
            arguments = (new, len(old) + 1, old, old_end, new_end, len(new) + 1)
            conn.execute(schema.DROP_OLDER_MOVED, arguments[:4])
            conn.execute(schema.DROP_OLDER_PRESENT, arguments)
            conn.execute(schema.MOVE_LIVE, arguments[:4])
            moved += conn.execute(schema.MOVE_LOG, arguments[:4]).rowcount
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return moved


def _lock(database: str) -> Any:
    """Hold an exclusive lock for the process lifetime: one server per database file."""
    handle = os.fdopen(open_private(Path(database + ".lock")), "w")  # closed in close()
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise errors.BackendUnavailableError(f"database {database} is in use by another process") from None
    return handle


def _make_private(database: str) -> None:
    """SQLite gives the -wal and -shm files the mode of the database file, so creating that file
    owner-only before SQLite opens it keeps all three private; companions left by an older run with
    wider modes are tightened."""
    os.close(open_private(Path(database)))
    for suffix in ("-wal", "-shm"):
        tighten(Path(database + suffix))


def _compact(conn: sqlite3.Connection, target: int, current: int, compacted: int) -> Exception | None:
    if target > current:
        return errors.FutureRevisionError(target, current)
    if target <= compacted:
        return errors.CompactedError(target, compacted)
    while conn.execute(schema.COMPACT, (target, _COMPACT_CHUNK)).rowcount == _COMPACT_CHUNK:
        pass
    conn.execute(schema.WRITE_COMPACTED, (target,))
    return None


def _reserve(path: str, size: int) -> None:
    """Allocate (not write) a file of about `size` bytes and remove it; raises OSError (ENOSPC)
    when the filesystem has no such room."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.posix_fallocate(descriptor, 0, min(max(size, _PROBE_MIN), _PROBE_MAX))
    finally:
        os.close(descriptor)
        os.unlink(path)


def _check(op: _Op, prev: KeyValue | None) -> Exception | None:
    if op.kind == "create":
        return errors.KeyExistsError(op.key) if prev is not None else None
    if prev is None:
        return errors.KeyNotFoundError(op.key)
    if op.expected and prev.mod_revision != op.expected:
        return errors.RevisionConflictError(op.key, op.expected, prev.mod_revision, prev)
    return None


def _mutate(conn: sqlite3.Connection, op: _Op, prev: KeyValue | None, revision: int) -> Event:
    if op.kind == "delete":
        assert prev is not None
        row = (revision, op.key, prev.create_revision, prev.mod_revision, 1, prev.value, op.writer)
        conn.execute(schema.INSERT_LOG, row)
        conn.execute(schema.DELETE_LIVE, (op.key,))
        return Event(EventType.DELETE, KeyValue(op.key, prev.value, prev.create_revision, revision), prev)
    created = prev.create_revision if prev is not None else revision
    prev_revision = prev.mod_revision if prev is not None else 0
    conn.execute(schema.INSERT_LOG, (revision, op.key, created, prev_revision, 0, op.value, op.writer))
    conn.execute(schema.UPSERT_LIVE, (op.key, created, revision))
    return Event(EventType.PUT, KeyValue(op.key, op.value, created, revision), prev)


def _event_from_row(row: tuple[Any, ...]) -> Event:
    revision, key, created, prev_revision, deleted, value, prev_value = row
    prev = None
    if prev_revision and prev_value is not None:
        prev = KeyValue(key, prev_value, created, prev_revision)
    kind = EventType.DELETE if deleted else EventType.PUT
    return Event(kind, KeyValue(key, value, created, revision), prev)


def open_backend(data_dir: str | Path) -> SqliteBackend:
    os.makedirs(data_dir, exist_ok=True)
    return SqliteBackend(Path(data_dir) / "state.db")
