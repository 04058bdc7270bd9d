"""The log backend: one Event a line (`json`, or upstream's `legacy` text), to a file or stdout.

In the `blocking` modes (the default) a writer thread does the I/O, so the event loop never waits on
the disk; events are queued in the order the requests produced them, the queue is unbounded and no
event is dropped: the request path only pays the enqueue. In `batch` mode events go through
upstream's buffered backend (`batching.py`, shared with the webhook): a buffer of `buffer_size`
events that drops new events while it is full (a disk slower than the requests for long enough),
batches of up to `max_size` events or `max_wait`, throttled to `throttle_qps` batches a second when
throttling is on; each batch is written in a worker thread. Oversized events are cut down when
truncation is on.
Rotation follows lumberjack's rules as upstream uses them: a file past `max_size` MB is renamed
`name-<timestamp>.ext` (gzipped to `.ext.gz` with `compress`), backups beyond `max_backups` or older
than `max_age` days are removed (0 keeps them). An event that cannot be written is logged and counted
(`apiserver_audit_error_total{plugin="log"}`) and the writer goes on.

In the blocking modes each event is encoded where it happens (`lines.py`: a few joined fragments
for the usual JSON line) and only its bytes are queued. The writer wakes for the first queued line,
lets more gather for `_PAUSE`, then writes all of them with one system call: it holds the
interpreter lock just long enough to take the lines, so it barely competes with the busy event
loop, and nothing a request allocated lives on while the writer waits."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import logging
import queue
import shutil
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson

from svc.apiserver.audit.batching import BatchBuffer
from svc.apiserver.audit.event import AuditItem, materialize
from svc.apiserver.audit.lines import json_line
from svc.apiserver.audit.options import BatchOptions, TruncateOptions
from svc.apiserver.audit.truncate import truncate_event

log = logging.getLogger(__name__)

_BACKUP_TIME_FORMAT = "%Y-%m-%dT%H-%M-%S.%f"
_PAUSE = 0.05
"""The writer's rest after each batch: requests then enqueue without waking it one event at a time."""


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

    def write(self, lines: list[bytes]) -> None:
        """Write the lines, as few system calls as rotation allows (one when no rotation falls between)."""
        chunk: list[bytes] = []
        chunk_size = 0
        for line in lines:
            if self.max_bytes and self.size + chunk_size and self.size + chunk_size + len(line) > self.max_bytes:
                self._write_all(b"".join(chunk))
                chunk, chunk_size = [], 0
                self._rotate()
            chunk.append(line)
            chunk_size += len(line)
        self._write_all(b"".join(chunk))

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = self.file.write(view)
            if not written:
                raise OSError(f"{self.path}: nothing written")
            view = view[written:]
        self.size += len(data)

    def close(self) -> None:
        self.file.close()

    def _rotate(self) -> None:
        self.file.close()
        stamp = datetime.now(UTC).strftime(_BACKUP_TIME_FORMAT)[:-3]
        backup = self.path.with_name(f"{self.path.stem}-{stamp}{self.path.suffix}")
        self.path.rename(backup)
        if self.compress:
            with backup.open("rb") as source, gzip.open(backup.with_name(backup.name + ".gz"), "wb") as target:
                shutil.copyfileobj(source, target)
            backup.unlink()
        self._prune()
        self.file = self.path.open("ab", buffering=0)
        self.size = 0

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
        self.out: _RotatingFile | None = (
            None if path == "-" else _RotatingFile(Path(path), max_size_mb, max_backups, max_age_days, compress)
        )
        self.truncate = truncate if truncate is not None and truncate.enabled else None
        self.batches = BatchBuffer(batch, self._send, on_drop) if batch is not None else None
        self.queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        if self.batches is None:
            self.thread = threading.Thread(target=self._run, name="audit-log", daemon=True)
            self.thread.start()

    def process(self, event: AuditItem) -> None:
        """Queue the event: never dropped in the blocking modes; in batch mode, dropped while the
        buffer is full. (Batch mode needs the running event loop.)"""
        if self.batches is not None:
            self.batches.process(event)
        elif (line := self._line(event)) is not None:
            self.queue.put_nowait(line)

    async def _send(self, events: list[AuditItem]) -> None:
        await asyncio.to_thread(self._write_events, events)

    def _write_events(self, items: list[AuditItem]) -> None:
        """Encode a batch and write it in one call (batch mode's worker)."""
        lines = [line for item in items if (line := self._line(item)) is not None]
        if lines:
            self._guarded(lines)

    def _line(self, item: AuditItem) -> bytes | None:
        """The event's line, cut down when over the truncation limit; None when dropped even so."""
        if self.format == "json":
            line = json_line(item)
            if self.truncate is None or len(line) <= self.truncate.max_event_size + 1:  # + the newline
                return line
        event: dict[str, Any] | None = materialize(item)
        if self.truncate is not None:
            event, _ = truncate_event(event, self.truncate.max_event_size)
            if event is None:
                return None
        if self.format == "legacy":
            return legacy_line(event).encode() + b"\n"
        return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)

    def _write(self, lines: list[bytes]) -> None:
        if self.out is None:
            sys.stdout.write(b"".join(lines).decode())
            sys.stdout.flush()
        else:
            self.out.write(lines)

    def _take(self) -> list[bytes | None]:
        """The next event (waiting for it) and every event queued behind it."""
        taken = [self.queue.get()]
        while True:
            try:
                taken.append(self.queue.get_nowait())
            except queue.Empty:
                return taken

    def _run(self) -> None:
        while True:
            taken = self._take()
            lines = [line for line in taken if line is not None]
            if lines:
                self._guarded(lines)
            if len(lines) < len(taken):  # the stop mark came
                return
            time.sleep(_PAUSE)

    def _guarded(self, lines: list[bytes]) -> None:
        try:
            self._write(lines)
        except OSError as error:
            log.error("failed to write %d audit events: %s", len(lines), error)
            if self.on_error is not None:
                for _ in lines:
                    self.on_error()

    async def close(self) -> None:
        """Write what is buffered or queued, then stop (the server calls this when it stops)."""
        if self.batches is not None:
            await self.batches.close()
        await asyncio.to_thread(self.shutdown)

    def shutdown(self) -> None:
        """Write what the writer thread has queued, then stop (the blocking modes' close)."""
        if self.thread is not None:
            self.queue.put(None)
            self.thread.join(timeout=30)
        if self.out is not None:
            with contextlib.suppress(OSError):  # what could not be written was counted as it failed
                self.out.close()
