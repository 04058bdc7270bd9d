"""The log backend: one Event a line (`json`, or upstream's `legacy` text), to a file or stdout.

In the `blocking` modes (the default) the event loop writes, as upstream's request goroutine writes
its event itself: lines gather in a buffer and go out with one system call when an event that an
answer follows (any stage but RequestReceived) is emitted, so no answer is sent before its events
are written; a RequestReceived alone is written when the loop turn ends. The usual read over HTTP/1.1
instead has its answer held until the turn's one write (`answer_gate.py`). No event is dropped. (A
writer thread costs far more: every hand-over of the interpreter lock between it and a saturated
event loop is a pair of context switches.) Compressing and pruning backups after a rotation runs
in a thread of its own, as lumberjack's mill does. In `batch` mode events go through
upstream's buffered backend (`batching.py`, shared with the webhook): a buffer of `buffer_size`
events that drops new events while it is full (a disk slower than the requests for long enough),
batches of up to `max_size` events or `max_wait`, throttled to `throttle_qps` batches a second when
throttling is on; each batch is written in a worker thread. Oversized events are cut down when
truncation is on.
Rotation follows lumberjack's rules as upstream uses them: a file past `max_size` MB is renamed
`name-<timestamp>.ext` (gzipped to `.ext.gz` with `compress`), backups beyond `max_backups` or older
than `max_age` days are removed (0 keeps them). An event that cannot be written is logged and counted
(`apiserver_audit_error_total{plugin="log"}`) and the writer goes on.

Each event is encoded where it happens (`lines.py`: a few joined fragments for the usual JSON line),
so only bytes wait in the buffer, or a request's RequestReceived the audit filter holds (`hold`):
encoded when written, with its ResponseComplete in one join and one write (`complete`) when the
request completes in the loop turn it came in."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import logging
import shutil
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson

from svc.apiserver.audit import event as events
from svc.apiserver.audit.answer_gate import AnswerGate
from svc.apiserver.audit.batching import BatchBuffer
from svc.apiserver.audit.event import AuditItem, PendingEvent, StagedEvent, materialize
from svc.apiserver.audit.lines import RECEIVED, Held, json_line, quick_line, received_and_completed, received_line
from svc.apiserver.audit.options import BatchOptions, TruncateOptions
from svc.apiserver.audit.truncate import truncate_event
from svc.machinery import wallclock

log = logging.getLogger(__name__)

_BACKUP_TIME_FORMAT = "%Y-%m-%dT%H-%M-%S.%f"


def _quoted(text: str) -> str:
    """Go's %q for the text a log line holds."""
    return json.dumps(text)


def _quoted_list(items: list[str]) -> str:
    return ",".join(_quoted(item) for item in items)


def legacy_line(event: dict[str, Any]) -> str:
    """Upstream's legacy format: `<received> AUDIT: id="..." stage="..." ...`, Go-quoted values."""
    user = event.get("user") or {}
    username, groups = user.get("username") or "<none>", "<none>"
    if user.get("username") and user.get("groups"):
        groups = _quoted_list(user["groups"])
    as_user, as_groups = "<self>", "<lookup>"
    if impersonated := event.get("impersonatedUser"):
        as_user = impersonated.get("username", "")
        if impersonated.get("groups") is not None:
            as_groups = _quoted_list(impersonated["groups"])
    namespace = (event.get("objectRef") or {}).get("namespace") or "<none>"
    status = event.get("responseStatus")
    response = str(status["code"]) if status else "<deferred>"
    ip = event["sourceIPs"][0] if event.get("sourceIPs") else "<unknown>"
    fields = (
        ("id", event["auditID"]),
        ("stage", event["stage"]),
        ("ip", ip),
        ("method", event["verb"]),
        ("user", username),
        ("groups", groups),
        ("as", as_user),
        ("asgroups", as_groups),
        ("user-agent", event.get("userAgent", "")),
        ("namespace", namespace),
        ("uri", event["requestURI"]),
    )
    text = " ".join(f"{name}={_quoted(value)}" for name, value in fields)
    return f'{event.get("requestReceivedTimestamp", "")} AUDIT: {text} response="{response}"'


class _Stdout:
    """`--audit-log-path=-`: the lines go to standard output (never rotated, never closed)."""

    def write(self, data: bytes) -> None:
        sys.stdout.write(data.decode())
        sys.stdout.flush()

    def close(self) -> None:
        """Standard output stays open."""


class _RotatingFile:
    def __init__(self, path: Path, max_size_mb: int, max_backups: int, max_age_days: int, compress: bool) -> None:
        self.path = path
        self.compress = compress
        self.max_bytes = max_size_mb * 1024 * 1024
        self.max_backups = max_backups
        self.max_age = max_age_days * 86400
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file: IO[bytes] = path.open("ab", buffering=0)
        self.size = path.stat().st_size
        self._mill: ThreadPoolExecutor | None = None
        """Compresses and prunes backups after a rotation (lumberjack's mill), off the writer's way."""

    def write(self, data: bytes) -> None:
        """Write whole lines, as few system calls as rotation allows (one when no rotation falls between)."""
        size = self.size + len(data)
        if not self.max_bytes or size <= self.max_bytes:
            written = self.file.write(data)
            if written != len(data):
                self._write_rest(data, written)
            self.size = size
            return
        chunk: list[bytes] = []
        chunk_size = 0
        for line in data.splitlines(keepends=True):
            if self.size + chunk_size and self.size + chunk_size + len(line) > self.max_bytes:
                self._write_all(b"".join(chunk))
                chunk, chunk_size = [], 0
                self._rotate()
            chunk.append(line)
            chunk_size += len(line)
        self._write_all(b"".join(chunk))

    def _write_all(self, data: bytes) -> None:
        written = self.file.write(data)
        if written != len(data):
            self._write_rest(data, written)
        self.size += len(data)

    def _write_rest(self, data: bytes, written: int | None) -> None:
        """After a short write: the rest, piece by piece."""
        view = memoryview(data)[written or 0 :]
        while view:
            written = self.file.write(view)
            if not written:
                raise OSError(f"{self.path}: nothing written")
            view = view[written:]

    def close(self) -> None:
        """Close the file once the backups in the making are done."""
        if self._mill is not None:
            self._mill.shutdown(wait=True)
        self.file.close()

    def _rotate(self) -> None:
        self.file.close()
        stamp = datetime.now(UTC).strftime(_BACKUP_TIME_FORMAT)[:-3]
        backup = self.path.with_name(f"{self.path.stem}-{stamp}{self.path.suffix}")
        self.path.rename(backup)
        self.file = self.path.open("ab", buffering=0)
        self.size = 0
        if self._mill is None:
            self._mill = ThreadPoolExecutor(1, thread_name_prefix="audit-log-mill")
        self._mill.submit(self._finish_backup, backup)

    def _finish_backup(self, backup: Path) -> None:
        try:
            if self.compress:
                with backup.open("rb") as source, gzip.open(backup.with_name(backup.name + ".gz"), "wb") as target:
                    shutil.copyfileobj(source, target)
                backup.unlink()
            self._prune()
        except OSError as error:
            log.error("failed to compress or prune audit log backups: %s", error)

    def _prune(self) -> None:
        pattern = f"{self.path.stem}-*{self.path.suffix}"
        found = [*self.path.parent.glob(pattern), *self.path.parent.glob(pattern + ".gz")]
        backups = sorted(found, key=lambda path: path.name.removesuffix(".gz"), reverse=True)
        now = time.time()
        for index, backup in enumerate(backups):
            too_many = self.max_backups and index >= self.max_backups
            too_old = self.max_age and now - backup.stat().st_mtime > self.max_age
            if too_many or too_old:
                backup.unlink(missing_ok=True)


def _encoded(item: bytes | Held) -> bytes:
    return item if isinstance(item, bytes) else received_line(item)


class LogBackend:
    name = "log"

    def __init__(
        self,
        path: str,
        fmt: str = "json",
        max_size_mb: int = 0,
        max_backups: int = 0,
        max_age_days: int = 0,
        *,
        compress: bool = False,
        batch: BatchOptions | None = None,
        truncate: TruncateOptions | None = None,
        on_drop: Callable[[int], None] = lambda count: None,
        on_error: Callable[[], None] | None = None,
    ) -> None:
        self.format = fmt
        self.on_error = on_error
        self.out: _RotatingFile | _Stdout = (
            _Stdout() if path == "-" else _RotatingFile(Path(path), max_size_mb, max_backups, max_age_days, compress)
        )
        self.truncate = truncate if truncate is not None and truncate.enabled else None
        self.batches = BatchBuffer(batch, self._send, on_drop) if batch is not None else None
        self.pending: list[bytes | Held] = []
        """Lines of the blocking modes not yet written, in the order the requests produced them (a
        held RequestReceived is encoded when written)."""
        self.quick = fmt == "json" and batch is None
        """Whether `process_stage` may encode a line straight from the request."""
        self.inline = self.quick and self.truncate is None
        """Whether the audit filter may hand over a request's events as `hold` and `complete`: lines
        that are never truncated."""
        self.gate = AnswerGate(self._waiting, self.flush) if self.inline else None
        """Holds HTTP/1.1 answers while lines wait for the turn's write (`answer_gate.py`)."""
        self.max_line = self.truncate.max_event_size + 1 if self.truncate is not None else sys.maxsize
        """The longest line written whole (the newline included); a longer event is truncated."""
        self._flush_scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop the server's requests run in, kept: asking for the running loop costs a getpid
        system call (Python 3.11 checks the process has not forked)."""

    def process(self, event: AuditItem) -> None:
        """Write the event (blocking modes: never dropped; a RequestReceived by the end of the loop
        turn, any other stage at once), or buffer it (batch mode: dropped while the buffer is full)."""
        if self.batches is not None:
            self.batches.process(event)
            return
        line = self._line(event)
        if line is not None:
            self._add(line, not isinstance(event, StagedEvent) or event.stage != RECEIVED)

    def process_stage(self, pending: PendingEvent, stage: str, annotations: dict[str, str]) -> None:
        """`process` of the event at `stage`, as the request stands now; the usual JSON line is encoded
        straight from the request (`lines.quick_line`), without staging the event."""
        if self.quick:
            stamp = None if stage == RECEIVED else wallclock.now()
            line = quick_line(pending, stage, stamp, pending.status, pending.later, annotations)
            if line is not None and len(line) <= self.max_line:
                self._add(line, stage != RECEIVED)
                return
        self.process(events.stage(pending, stage, annotations))

    def _add(self, line: bytes, now: bool) -> None:
        """Buffer a line of the blocking modes; written `now` when an answer follows it (no answer
        is sent before its events are written), else once the loop turn ends."""
        self.pending.append(line)
        if now:
            self.flush()
        elif not self._flush_scheduled:
            self._flush_at_turn_end()

    def hold(self, held: Held) -> None:
        """A request's RequestReceived (the inline way): encoded with its ResponseComplete when the
        request completes in this loop turn, else written once the turn ends."""
        self.pending.append(held)
        if not self._flush_scheduled:
            self._flush_at_turn_end()

    def complete(
        self, held: Held, code: int, completed: float, annotations: dict[str, str], *, gated: bool = False
    ) -> bool:
        """The ResponseComplete of a held request the answer added nothing to but its code; False when
        its line cannot be encoded this way (it then goes the built Event's way). A `gated` answer
        (`answer_gate.py`) waits for the turn's write, so the line joins it; any other is preceded by
        a write of this line and what is pending before it (its RequestReceived, when held still)."""
        pending = self.pending
        alone = len(pending) == 1 and pending[0] is held
        data = received_and_completed(held, alone, code, completed, annotations)
        if data is None:
            return False
        if gated:
            if alone:
                pending[0] = data
            else:
                pending.append(data)
            if not self._flush_scheduled:
                self._flush_at_turn_end()
            return True
        if alone:
            pending.clear()
        elif pending:
            self.pending = []
            data = b"".join([*map(_encoded, pending), data])
        try:
            self.out.write(data)
        except OSError as error:
            self._failed(error, 2 if alone else len(pending) + 1)
        if self.gate is not None and self.gate.held:
            self.gate.release()
        return True

    def _waiting(self) -> bool:
        return bool(self.pending)

    def _flush_at_turn_end(self) -> None:
        loop = self._loop
        if loop is None or not loop.is_running():
            try:
                loop = self._loop = asyncio.get_running_loop()
            except RuntimeError:  # no event loop (a caller outside the server): write now
                self.flush()
                return
        self._flush_scheduled = True
        loop.call_soon(self._turn_ended)

    def _turn_ended(self) -> None:
        """Write what the loop turn left (a RequestReceived whose request goes on); one call a turn."""
        self._flush_scheduled = False
        self.flush()

    def flush(self) -> None:
        """Write the buffered lines with one system call (the blocking modes), then send the answers
        held for them."""
        if self.pending:
            pending, self.pending = self.pending, []
            self._guarded(b"".join(map(_encoded, pending)), len(pending))
        if self.gate is not None and self.gate.held:
            self.gate.release()

    async def _send(self, events: list[AuditItem]) -> None:
        await asyncio.to_thread(self._write_events, events)

    def _write_events(self, items: list[AuditItem]) -> None:
        """Encode a batch and write it in one call (batch mode's worker)."""
        lines = [line for item in items if (line := self._line(item)) is not None]
        if lines:
            self._guarded(b"".join(lines), len(lines))

    def _line(self, item: AuditItem) -> bytes | None:
        """The event's line, cut down when over the truncation limit; None when dropped even so."""
        if self.format == "json":
            line = json_line(item)
            if len(line) <= self.max_line:
                return line
        event: dict[str, Any] | None = materialize(item)
        if self.truncate is not None:
            event, _ = truncate_event(event, self.truncate.max_event_size)
            if event is None:
                return None
        if self.format == "legacy":
            return legacy_line(event).encode() + b"\n"
        return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)

    def _guarded(self, data: bytes, count: int) -> None:
        """Write `count` events' lines; a failure is logged and counted per event."""
        try:
            self.out.write(data)
        except OSError as error:
            self._failed(error, count)

    def _failed(self, error: OSError, count: int) -> None:
        log.error("failed to write %d audit events: %s", count, error)
        if self.on_error is not None:
            for _ in range(count):
                self.on_error()

    async def close(self) -> None:
        """Write what is buffered or queued, then stop (the server calls this when it stops)."""
        if self.batches is not None:
            await self.batches.close()
        self.flush()
        await asyncio.to_thread(self.shutdown)

    def shutdown(self) -> None:
        """Write what is buffered, then close the file (the blocking modes' close)."""
        self.flush()
        with contextlib.suppress(OSError):  # what could not be written was counted as it failed
            self.out.close()
