"""The audit webhook backend against a real HTTPS receiver: EventLists in batch mode, per-event
delivery before the answer in blocking mode, retries, strict refusal, truncation, and 401 events."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from prometheus_client import generate_latest

from svc.testing.webhook_server import issue_webhook_tls, threaded_https_webhook

POLICY = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


class Receiver:
    """Collects the EventLists it is sent; answers `failures` 500s first."""

    def __init__(self, failures: int = 0) -> None:
        self.lists: list[dict[str, Any]] = []
        self.failures = failures
        self.lock = threading.Lock()

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self.lock:
            if self.failures:
                self.failures -= 1
                return web.Response(status=500)
            self.lists.append(body)
        return web.json_response({})

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [event for batch in self.lists for event in batch["items"]]

    def wait_for(self, audit_id: str, count: int) -> list[dict[str, Any]]:
        deadline = time.monotonic() + 10
        for _ in range(400):
            found = [event for event in self.events() if event["auditID"] == audit_id]
            if len(found) >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.025)
        return found


@pytest.fixture
def tls(tmp_path):
    return issue_webhook_tls(tmp_path / "tls", ["127.0.0.1"])


def _kubeconfig(path: Path, url: str, tls) -> Path:
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": "audit", "cluster": {"server": url, "certificate-authority-data": tls.ca_bundle}}
                ],
                "users": [{"name": "audit", "user": {}}],
                "contexts": [{"name": "audit", "context": {"cluster": "audit", "user": "audit"}}],
                "current-context": "audit",
            }
        )
    )
    return path


def _start(factory, tmp_path: Path, url: str, tls, *flags: str, policy: str = POLICY):
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(policy)
    config = _kubeconfig(tmp_path / "audit-kubeconfig", url, tls)
    return factory(f"--audit-policy-file={policy_file}", f"--audit-webhook-config-file={config}", *flags)


def test_batch_mode_sends_event_lists(svc_server_factory, tmp_path, tls) -> None:
    receiver = Receiver()
    with threaded_https_webhook(receiver.handle, tls) as url:
        running = _start(svc_server_factory, tmp_path, url, tls, "--audit-webhook-batch-max-wait=50ms")
        answer = running.client().request("GET", CONFIGMAPS)
        found = receiver.wait_for(answer.headers["Audit-ID"], 2)
    assert [event["stage"] for event in found] == ["RequestReceived", "ResponseComplete"]
    assert found[1]["level"] == "Metadata"
    assert found[1]["responseStatus"]["code"] == 200
    assert receiver.lists[0]["kind"] == "EventList"
    assert receiver.lists[0]["apiVersion"] == "audit.k8s.io/v1"


def test_blocking_mode_delivers_before_the_answer(svc_server_factory, tmp_path, tls) -> None:
    receiver = Receiver()
    with threaded_https_webhook(receiver.handle, tls) as url:
        running = _start(svc_server_factory, tmp_path, url, tls, "--audit-webhook-mode=blocking")
        client = running.client()
        ids = [client.request("GET", CONFIGMAPS).headers["Audit-ID"] for _ in range(5)]
        events = receiver.events()
    for audit_id in ids:
        assert [event["stage"] for event in events if event["auditID"] == audit_id] == [
            "RequestReceived",
            "ResponseComplete",
        ]
    assert all(len(batch["items"]) == 1 for batch in receiver.lists)


def test_failed_sends_are_retried_with_backoff(svc_server_factory, tmp_path, tls) -> None:
    receiver = Receiver(failures=2)
    with threaded_https_webhook(receiver.handle, tls) as url:
        running = _start(
            svc_server_factory,
            tmp_path,
            url,
            tls,
            "--audit-webhook-mode=blocking",
            "--audit-webhook-initial-backoff=10ms",
        )
        answer = running.client().request("GET", CONFIGMAPS)
        found = [event for event in receiver.events() if event["auditID"] == answer.headers["Audit-ID"]]
    assert answer.status == 200
    assert [event["stage"] for event in found] == ["RequestReceived", "ResponseComplete"]


def test_blocking_strict_refuses_a_request_it_cannot_audit(svc_server_factory, tmp_path, tls) -> None:
    receiver = Receiver(failures=1_000)
    with threaded_https_webhook(receiver.handle, tls) as url:
        running = _start(
            svc_server_factory,
            tmp_path,
            url,
            tls,
            "--audit-webhook-mode=blocking-strict",
            "--audit-webhook-initial-backoff=1ms",
        )
        answer = running.client().request("GET", CONFIGMAPS)
        metrics = generate_latest(running.server.metrics.registry).decode()
    assert answer.status == 500
    assert answer.json()["message"] == "Internal error occurred: failed to store audit event"
    assert 'apiserver_audit_error_total{plugin="webhook"}' in metrics


def test_truncation_drops_objects_of_large_events(svc_server_factory, tmp_path, tls) -> None:
    receiver = Receiver()
    policy = (
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: RequestResponse\n"
    )
    with threaded_https_webhook(receiver.handle, tls) as url:
        running = _start(
            svc_server_factory,
            tmp_path,
            url,
            tls,
            "--audit-webhook-mode=blocking",
            "--audit-webhook-truncate-enabled",
            "--audit-webhook-truncate-max-event-size=4000",
            policy=policy,
        )
        body = {"metadata": {"name": "big"}, "data": {"k": "x" * 10_000}}
        answer = running.client().request("POST", CONFIGMAPS, body=body)
        (event,) = [event for event in receiver.events() if event["auditID"] == answer.headers["Audit-ID"]]
    assert "requestObject" not in event and "responseObject" not in event
    assert event["annotations"]["audit.k8s.io/truncated"] == "true"


def test_unauthenticated_requests_are_audited(svc_server_factory, tmp_path, tls) -> None:
    receiver = Receiver()
    with threaded_https_webhook(receiver.handle, tls) as url:
        running = _start(
            svc_server_factory, tmp_path, url, tls, "--audit-webhook-mode=blocking", "--anonymous-auth=false"
        )
        client = running.anonymous_client()
        client.headers["Authorization"] = "Bearer not-a-token"
        answer = client.request("GET", CONFIGMAPS)
        audit_id = answer.headers["Audit-ID"]
        (event,) = [event for event in receiver.events() if event["auditID"] == audit_id]
    assert answer.status == 401
    assert event["stage"] == "ResponseStarted"
    assert event["user"] == {}
    assert event["responseStatus"] == {
        "metadata": {},
        "message": "Authentication failed, attempted: bearer",
        "code": 401,
    }


def test_a_bad_batch_flag_stops_the_server(tmp_path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "svc.apiserver",
            "--audit-log-path=-",
            "--audit-log-mode=batch",
            "--audit-log-batch-buffer-size=0",
            f"--data-dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "invalid audit batch log buffer size 0, must be a positive number" in result.stderr
