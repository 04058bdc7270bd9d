"""The audit log backend: every event written in order (a request's events before its answer), the
legacy format, size rotation with backups, lines encoded straight from the request."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import orjson
from aiohttp.test_utils import make_mocked_request

from svc.apiserver.audit.event import PendingEvent, StagedEvent, stage
from svc.apiserver.audit.log_backend import LogBackend
from svc.apiserver.audit.options import TruncateOptions
from svc.apiserver.audit.policy import Level
from svc.apiserver.request_info import RequestInfo
from svc.machinery import wallclock
from svc.machinery.wallclock import FakeWallClock
from svc.registry.admission import UserInfo


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


def _staged(audit_id: str, stage_name: str) -> StagedEvent:
    info = RequestInfo("/api/v1/namespaces/ns/configmaps/a", "get", True, "api", "", "v1", "ns", "configmaps", "", "a")
    request = make_mocked_request("GET", info.path)
    pending = PendingEvent(Level.METADATA, audit_id, request, info, UserInfo("alice"))
    return stage(pending, stage_name, {})


def _logged_ids(log: Path) -> list[str]:
    return [json.loads(line)["auditID"] for line in log.read_text().splitlines()]


def test_a_received_event_waits_for_the_loop_turn_and_a_later_stage_writes_at_once(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log))

    async def scenario() -> None:
        backend.process(_staged("first", "RequestReceived"))
        backend.process(_staged("second", "RequestReceived"))
        assert _logged_ids(log) == []  # the request goes on; its event is written when the loop turn ends
        await asyncio.sleep(0)
        assert _logged_ids(log) == ["first", "second"]
        backend.process(_staged("third", "RequestReceived"))
        backend.process(_staged("first", "ResponseComplete"))
        assert _logged_ids(log) == ["first", "second", "third", "first"]  # before the answer, in order
        await backend.close()

    asyncio.run(scenario())


def test_a_received_event_waits_for_the_turn_of_each_loop_the_backend_serves(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log))

    async def received(audit_id: str) -> None:
        backend.process(_staged(audit_id, "RequestReceived"))
        await asyncio.sleep(0)

    asyncio.run(received("first"))
    asyncio.run(received("second"))  # the first loop is closed: the line is written by this one's turn
    assert _logged_ids(log) == ["first", "second"]
    backend.shutdown()


def _request_event(audit_id: str) -> PendingEvent:
    info = RequestInfo("/api/v1/namespaces/ns/configmaps/a", "get", True, "api", "", "v1", "ns", "configmaps", "", "a")
    request = make_mocked_request("GET", info.path, headers={"User-Agent": "kubectl/v1.35"})
    return PendingEvent(Level.METADATA, audit_id, request, info, UserInfo("alice", groups=("devs",)))


def test_a_stage_written_from_the_request_is_the_built_events_line(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log))
    pending = _request_event("id-1")
    annotations = {"authorization.k8s.io/decision": "allow"}
    wallclock.bind(FakeWallClock(1764097000.25))
    try:
        backend.process_stage(pending, "RequestReceived", {})
        expected = [stage(pending, "RequestReceived", {})]
        pending.status = (200, None)
        backend.process_stage(pending, "ResponseComplete", annotations)
        expected.append(stage(pending, "ResponseComplete", annotations))
    finally:
        wallclock.bind(None)
    backend.shutdown()
    built = [orjson.dumps(item.build(), option=orjson.OPT_APPEND_NEWLINE) for item in expected]
    assert log.read_bytes() == b"".join(built)


def test_a_stage_the_answer_added_to_is_written_from_the_built_event(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log))
    pending = _request_event("id-1")
    pending.status = (404, {"status": "Failure", "reason": "NotFound"})
    backend.process_stage(pending, "ResponseComplete", {})
    backend.shutdown()
    assert json.loads(log.read_text())["responseStatus"] == {
        "metadata": {},
        "status": "Failure",
        "reason": "NotFound",
        "code": 404,
    }


def test_a_stage_over_the_event_size_limit_goes_through_truncation(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    backend = LogBackend(str(log), truncate=TruncateOptions(enabled=True, max_event_size=300))
    backend.process_stage(_request_event("id-1"), "RequestReceived", {})  # about 500 bytes, nothing to cut
    backend.shutdown()
    assert log.read_text() == ""  # dropped, as upstream drops an event still too large once truncated
