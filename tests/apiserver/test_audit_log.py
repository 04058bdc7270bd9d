"""The audit log backend: every event written in order, the legacy format, size rotation with backups."""

from __future__ import annotations

import json
from pathlib import Path

from svc.apiserver.audit.log_backend import LogBackend


def _event(index: int) -> dict:
    return {
        "auditID": f"id-{index}",
        "stage": "ResponseComplete",
        "requestURI": "/api/v1/pods",
        "verb": "list",
        "user": {"username": "alice", "groups": ["devs"]},
        "sourceIPs": ["127.0.0.1"],
        "responseStatus": {"metadata": {}, "code": 200},
        "requestReceivedTimestamp": "2026-01-01T00:00:00.000000Z",
        "padding": "x" * 1000,
    }


def test_every_event_is_written_in_order(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log))
    for index in range(500):
        backend.process(_event(index))
    backend.shutdown()
    assert [json.loads(line)["auditID"] for line in log.read_text().splitlines()] == [f"id-{i}" for i in range(500)]


def test_the_legacy_format(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log), "legacy")
    backend.process(_event(1))
    backend.shutdown()
    expected = (
        r'2026-01-01T00:00:00.000000Z AUDIT: id="id-1" stage="ResponseComplete" ip="127.0.0.1" method="list" '
        r'user="alice" groups="\"devs\"" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" '
        r'uri="/api/v1/pods" response="200"'
    )
    assert log.read_text() == expected + "\n"


def test_a_full_file_is_rotated_and_old_backups_removed(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log), max_size_mb=1, max_backups=2)
    for index in range(4000):  # about 4.5 MB: four rotations
        backend.process(_event(index))
    backend.shutdown()
    backups = sorted(tmp_path.glob("audit-*.log"))
    assert len(backups) == 2
    assert all(path.stat().st_size <= 1024 * 1024 for path in [log, *backups])
    last = json.loads(log.read_text().splitlines()[-1])
    assert last["auditID"] == "id-3999"
