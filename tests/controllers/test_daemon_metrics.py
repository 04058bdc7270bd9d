"""The controller manager's /metrics: client-go's work queue, REST client and leader election metrics
and the process's, behind delegated authentication and authorization (TokenReview and
SubjectAccessReview against the API server), as upstream's kube-controller-manager serves them."""

from __future__ import annotations

import http.client
import ssl
import time
from collections.abc import Callable
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from svc.testing.harness import RunningControllerManager, RunningServer


def _get(daemon: RunningControllerManager, path: str, token: str = "") -> tuple[int, str]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", daemon.port, timeout=10, context=context)
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def _value(text: str, metric: str, **labels: str) -> float:
    samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]
    return sum(s.value for s in samples if s.name == metric and all(s.labels.get(k) == v for k, v in labels.items()))


def test_metrics_need_delegated_permission_and_report_queues_clients_and_leadership(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('plain-token,plain,u1\nmonitor-token,prom,u2,"system:monitoring"\n')
    server = svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=RBAC")
    daemon = svc_controller_manager(
        server,
        "--controllers=serviceaccount",
        f"--authentication-kubeconfig={server.kubeconfig}",
        f"--authorization-kubeconfig={server.kubeconfig}",
    )
    assert _get(daemon, "/healthz")[0] == 200
    assert _get(daemon, "/metrics")[0] == 403
    code, body = _get(daemon, "/metrics", "plain-token")
    assert code == 403
    assert 'User \\"plain\\" cannot get path \\"/metrics\\"' in body
    assert _get(daemon, "/metrics", "no-such-token")[0] == 401
    deadline = time.monotonic() + 10
    text = ""
    while time.monotonic() < deadline and not _value(text, "workqueue_adds_total", name="serviceaccount-controller"):
        code, text = _get(daemon, "/metrics", "monitor-token")
        assert code == 200
    assert _value(text, "workqueue_adds_total", name="serviceaccount-controller") >= 1
    assert _value(text, "workqueue_queue_duration_seconds_count", name="serviceaccount-controller") >= 1
    assert _value(text, "workqueue_work_duration_seconds_count", name="serviceaccount-controller") >= 1
    assert "workqueue_longest_running_processor_seconds" in text
    assert _value(text, "rest_client_requests_total", code="200", method="GET") >= 1
    assert _value(text, "rest_client_request_duration_seconds_count", verb="GET") >= 1
    assert _value(text, "leader_election_master_status") == 1
    assert _value(text, "process_resident_memory_bytes") > 0
    assert _get(daemon, "/metrics/slis", "monitor-token")[0] == 200
