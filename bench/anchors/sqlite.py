"""The storage ceiling: raw SQLite commits with the backend's own settings and log table.

One row per transaction is what a lone client's create costs the disk (bound by fsync with
`synchronous=FULL`); many rows per transaction is what group commit can reach. The API server's
create rate is read against both.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from bench.progress import progress
from bench.report import Facts, Section, rate
from svc.storage.sqlite.schema import CREATE, INSERT_LOG, PRAGMAS

HEADERS = ("scenario", "rows per commit", "commits", "commits/s", "rows/s", "notes")
BATCH_ROWS = 100


def _open(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    for pragma in PRAGMAS:
        connection.execute(pragma)
    for statement in CREATE:
        connection.execute(statement)
    return connection


def commit_rate(path: Path, *, commits: int, rows_per_commit: int, value: bytes) -> float:
    """Commits per second of `commits` transactions of `rows_per_commit` log rows each."""
    connection = _open(path)
    try:
        revision = connection.execute("SELECT COALESCE(MAX(revision), 0) FROM log").fetchone()[0]
        started = time.perf_counter()
        for _ in range(commits):
            connection.execute("BEGIN")
            for _ in range(rows_per_commit):
                revision += 1
                connection.execute(INSERT_LOG, (revision, f"/bench/{revision}", revision, 0, 0, value, None))
            connection.execute("COMMIT")
        return commits / (time.perf_counter() - started)
    finally:
        connection.close()


def run(workdir: Path, commits: int, value_bytes: int) -> tuple[Section, Facts]:
    section = Section("Anchor: raw SQLite commits (backend PRAGMAs and log table)", HEADERS)
    facts: Facts = {}
    value = b"x" * value_bytes
    path = workdir / "sqlite-anchor.db"
    for rows in (1, BATCH_ROWS):
        count = commits if rows == 1 else max(commits // 10, 10)
        progress(f"sqlite: {count:,} commits of {rows} row(s)")
        per_second = commit_rate(path, commits=count, rows_per_commit=rows, value=value)
        section.add(
            "INSERT into log",
            str(rows),
            f"{count:,}",
            rate(per_second),
            rate(per_second * rows),
            f"{value_bytes:,}-byte values",
        )
        facts[f"sqlite commit/{rows}"] = per_second
    section.notes.append("PRAGMAs: " + "; ".join(pragma.removeprefix("PRAGMA ") for pragma in PRAGMAS))
    return section, facts
