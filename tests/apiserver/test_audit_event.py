"""Audit events: upstream's MicroTime stamps, the same text whichever second was formatted before; the
Audit-ID; events built from a request's raw inputs, each stage as it stood when emitted."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from aiohttp.test_utils import make_mocked_request

from svc.apiserver.audit.event import PendingEvent, stage, timestamp
from svc.apiserver.audit.policy import Level
from svc.apiserver.filters.audit import new_audit_id
from svc.apiserver.request_info import RequestInfo
from svc.registry.admission import UserInfo


@pytest.mark.parametrize(
    "seconds",
    [0.0, 1764097000.123456, 1764097000.9999996, 1764097001.0000004, 1727618625.3886065, 1764097000.5],
)
def test_timestamps_are_rfc3339_with_microseconds_in_utc(seconds: float) -> None:
    expected = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert timestamp(seconds) == expected


def test_a_new_second_is_formatted_afresh() -> None:
    assert timestamp(1764097000.25) == "2025-11-25T18:56:40.250000Z"
    assert timestamp(1764097061.5) == "2025-11-25T18:57:41.500000Z"


def test_audit_ids_are_random_version_4_uuids() -> None:
    ids = {new_audit_id() for _ in range(64)}
    assert len(ids) == 64
    for text in ids:
        parsed = uuid.UUID(text)
        assert (str(parsed), parsed.version, parsed.variant) == (text, 4, uuid.RFC_4122)


def _pending() -> PendingEvent:
    request = make_mocked_request(
        "POST", "/api/v1/namespaces/ns/configmaps", headers={"User-Agent": "kubectl", "X-Forwarded-For": "10.0.0.1"}
    )
    info = RequestInfo("/api/v1/namespaces/ns/configmaps", "create", True, "api", "", "v1", "ns", "configmaps", "", "")
    return PendingEvent(Level.METADATA, "id-1", request, info, UserInfo("alice", groups=("devs",)))


def test_an_event_is_built_with_upstreams_fields_in_upstreams_order() -> None:
    pending = _pending()
    pending.status = (201, None)
    event = stage(pending, "ResponseComplete", {"a": "b"}).build()
    assert list(event) == [
        "kind",
        "apiVersion",
        "level",
        "auditID",
        "stage",
        "requestURI",
        "verb",
        "user",
        "sourceIPs",
        "userAgent",
        "objectRef",
        "responseStatus",
        "requestReceivedTimestamp",
        "stageTimestamp",
        "annotations",
    ]
    assert event["user"] == {"username": "alice", "groups": ["devs"]}
    assert event["objectRef"] == {"resource": "configmaps", "namespace": "ns", "apiVersion": "v1"}
    assert event["responseStatus"] == {"metadata": {}, "code": 201}


def test_a_stage_keeps_what_it_saw_when_the_request_goes_on() -> None:
    pending = _pending()
    annotations: dict[str, str] = {}
    received = stage(pending, "RequestReceived", annotations)
    annotations["later"] = "x"
    pending.status = (201, None)
    pending.later = {"objectRef": {"resource": "configmaps", "name": "made"}}
    complete = stage(pending, "ResponseComplete", annotations).build()
    first = received.build()
    assert "responseStatus" not in first and "annotations" not in first
    assert first["objectRef"] == {"resource": "configmaps", "namespace": "ns", "apiVersion": "v1"}
    assert first["stageTimestamp"] == first["requestReceivedTimestamp"]
    assert complete["objectRef"] == {"resource": "configmaps", "name": "made"}
    assert complete["annotations"] == {"later": "x"}
