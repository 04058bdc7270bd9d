"""Audit's answer gate: while audit lines wait for the log's write (once a loop turn), the bytes
an HTTP/1.1 connection sends wait with them and follow them, in order; a close waits too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from svc.apiserver.audit.answer_gate import HELD_BYTES, AnswerGate
from tests.apiserver.raw_http import exchange

CONFIGMAP = "/api/v1/namespaces/default/configmaps/gated"


class _Transport:
    """A transport recording what reaches it."""

    def __init__(self, sent: list[Any]) -> None:
        self.sent = sent
        self.closed = False

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def close(self) -> None:
        self.closed = True
        self.sent.append("close")

    def is_closing(self) -> bool:
        return self.closed

    def __getattr__(self, name: str) -> Any:
        return lambda *args: None


def _gate(waiting: list[bool]) -> AnswerGate:
    gate = AnswerGate(lambda: bool(waiting), lambda: (waiting.clear(), gate.release()))
    return gate


def test_bytes_pass_straight_through_while_no_line_waits() -> None:
    sent: list[Any] = []
    gated = _gate([]).wrap(_Transport(sent))
    gated.write(b"answer")
    assert sent == [b"answer"]


def test_bytes_sent_while_lines_wait_follow_the_write_in_order() -> None:
    waiting = [True]
    gate = _gate(waiting)
    first, second = [], []
    one, two = gate.wrap(_Transport(first)), gate.wrap(_Transport(second))
    one.write(b"a1")
    two.writelines([b"b", b"1"])
    one.write(b"a2")
    assert first == [] and second == []
    waiting.clear()
    one.write(b"a3")  # still behind what is held, though no line waits now
    gate.release()
    assert first == [b"a1", b"a2", b"a3"] and second == [b"b1"]


def test_a_close_waits_behind_the_answer_it_follows() -> None:
    waiting = [True]
    gate = _gate(waiting)
    sent: list[Any] = []
    gated = gate.wrap(_Transport(sent))
    gated.write(b"answer")
    gated.close()
    assert sent == []
    waiting.clear()
    gate.release()
    assert sent == [b"answer", "close"]


def test_held_bytes_of_a_connection_closed_meanwhile_are_dropped() -> None:
    gate = _gate([True])
    real = _Transport([])
    gate.wrap(real).write(b"answer")
    real.closed = True
    gate.release()
    assert real.sent == []


def test_held_bytes_past_the_limit_make_the_log_write_at_once() -> None:
    waiting = [True]
    gate = _gate(waiting)
    sent: list[Any] = []
    gated = gate.wrap(_Transport(sent))
    gated.write(b"x" * HELD_BYTES)
    assert sent == []
    gated.write(b"y")
    assert sent == [b"x" * HELD_BYTES, b"y"]
    assert not waiting


def _metadata_server(factory: Any, tmp_path: Path) -> tuple[Any, Path]:
    policy = tmp_path / "policy.yaml"
    policy.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    log = tmp_path / "audit.log"
    return factory(f"--audit-policy-file={policy}", f"--audit-log-path={log}"), log


def _request(server: Any, close: bool) -> bytes:
    host = server.url.removeprefix("https://")
    connection = "Connection: close\r\n" if close else ""
    return f"GET {CONFIGMAP} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json\r\n{connection}\r\n".encode()


def test_an_answer_reaches_its_client_after_its_events_are_written(svc_server_factory, tmp_path) -> None:
    server, log = _metadata_server(svc_server_factory, tmp_path)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gated"}}
    assert server.client().request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    code, headers, _ = exchange(server, _request(server, close=False))
    assert code == 200
    written = [json.loads(line) for line in log.read_text().splitlines()]  # read at once: no waiting
    stages = [event["stage"] for event in written if event["auditID"] == headers["Audit-ID"]]
    assert stages == ["RequestReceived", "ResponseComplete"]


def test_an_answer_on_a_connection_the_server_closes_arrives_whole(svc_server_factory, tmp_path) -> None:
    server, _ = _metadata_server(svc_server_factory, tmp_path)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gated"}, "data": {"k": "v" * 4000}}
    assert server.client().request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    code, headers, answer = exchange(server, _request(server, close=True))
    assert code == 200
    assert headers.get("Connection") == "close"
    assert answer["data"]["k"] == "v" * 4000
