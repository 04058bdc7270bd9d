"""Audit JSON lines from cached fragments: byte for byte the encoding of the built Event, whatever the
request's shape, and a shape seen before does not leak into another request's line."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from aiohttp.test_utils import make_mocked_request

from svc.apiserver.audit.event import PendingEvent, StagedEvent, stage
from svc.apiserver.audit.lines import held_event, json_line, received_and_completed, received_line
from svc.apiserver.audit.policy import Level
from svc.apiserver.request_info import RequestInfo
from svc.registry.admission import UserInfo

_GET = RequestInfo("/api/v1/namespaces/ns/configmaps/a", "get", True, "api", "", "v1", "ns", "configmaps", "", "a")
_HEALTH = RequestInfo("/readyz", "get", False, "", "", "", "", "", "", "")


def _pending(
    *,
    info: RequestInfo = _GET,
    user: UserInfo | None = UserInfo("alice", groups=("devs",)),
    headers: dict[str, str] | None = None,
    audit_id: str = "id-1",
    level: Level = Level.METADATA,
) -> PendingEvent:
    request = make_mocked_request("GET", info.path, headers=headers or {})
    return PendingEvent(level, audit_id, request, info, user)


def _expected(item: Any) -> bytes:
    return orjson.dumps(item.build(), option=orjson.OPT_APPEND_NEWLINE)


@pytest.mark.parametrize(
    "pending",
    [
        _pending(),
        _pending(info=_HEALTH, headers={"User-Agent": "kubectl/v1.35"}),
        _pending(user=None, level=Level.REQUEST),
        _pending(user=UserInfo("bob", uid="u-1", groups=(), extra={"scopes": ("a", "b")})),
        _pending(headers={"X-Forwarded-For": "10.0.0.1, 10.0.0.2", "X-Real-Ip": "10.0.0.3"}),
        _pending(headers={"User-Agent": 'quote " and \\ and \u00e9 and \x01'}, audit_id='client "id"'),
    ],
    ids=["resource", "non-resource", "no-user", "user-extra", "forwarded", "escaped"],
)
def test_every_stage_is_the_built_events_encoding(pending: PendingEvent) -> None:
    annotations: dict[str, str] = {}
    received = stage(pending, "RequestReceived", annotations)
    assert json_line(received) == _expected(received)
    annotations["authorization.k8s.io/decision"] = "allow"
    pending.status = (200, None)
    complete = stage(pending, "ResponseComplete", annotations)
    assert json_line(complete) == _expected(complete)


@pytest.mark.parametrize(
    "pending",
    [
        _pending(),
        _pending(info=_HEALTH, headers={"User-Agent": "kubectl/v1.35"}),
        _pending(user=UserInfo("bob", uid="u-1", groups=(), extra={"scopes": ("a", "b")})),
        _pending(headers={"User-Agent": 'quote " and \\ and \u00e9 and \x01'}, audit_id='client "id"'),
    ],
    ids=["resource", "non-resource", "user-extra", "escaped"],
)
def test_a_held_requests_two_lines_are_the_built_events_encoding(pending: PendingEvent) -> None:
    held = held_event(pending)
    assert held is not None
    annotations = {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "é"}
    received = stage(pending, "RequestReceived", {})
    complete = StagedEvent(pending, "ResponseComplete", pending.received + 0.000123, annotations, (200, None), None)
    assert received_line(held) == _expected(received)
    both = received_and_completed(held, True, 200, complete.stamp, annotations)
    assert both == _expected(received) + _expected(complete)
    assert received_and_completed(held, False, 200, complete.stamp, annotations) == _expected(complete)


def test_a_stage_the_answer_added_to_is_the_built_events_encoding() -> None:
    pending = _pending()
    pending.status = (404, {"status": "Failure", "reason": "NotFound", "code": 404})
    pending.later = {"impersonatedUser": {"username": "carol"}}
    complete = stage(pending, "ResponseComplete", {})
    assert json_line(complete) == _expected(complete)


def test_requests_of_one_shape_keep_their_own_id_uri_and_stamps() -> None:
    first = stage(_pending(audit_id="id-1"), "RequestReceived", {})
    json_line(first)
    other_info = RequestInfo(
        "/api/v1/namespaces/ns/configmaps/a?pretty=1", "get", True, "api", "", "v1", "ns", "configmaps", "", "a"
    )
    second = stage(_pending(info=other_info, audit_id="id-2"), "RequestReceived", {})
    line = orjson.loads(json_line(second))
    assert (line["auditID"], line["requestURI"]) == ("id-2", "/api/v1/namespaces/ns/configmaps/a?pretty=1")
    assert json_line(second) == _expected(second)


def test_a_user_seen_under_another_shape_gets_its_own_fragment() -> None:
    json_line(stage(_pending(user=UserInfo("alice", groups=("devs",))), "RequestReceived", {}))
    other = stage(_pending(user=UserInfo("alice", groups=("admins",))), "RequestReceived", {})
    assert orjson.loads(json_line(other))["user"] == {"username": "alice", "groups": ["admins"]}


def test_header_bytes_that_are_not_utf8_are_written_as_replacement_characters() -> None:
    pending = _pending()
    pending.user_agent = b"agent-\xff".decode("utf-8", "surrogateescape")  # as the HTTP parser hands it over
    line = json_line(stage(pending, "RequestReceived", {}))
    assert orjson.loads(line)["userAgent"] == "agent-\ufffd"
