"""Requests under priority and fairness and under the plain in-flight limits (issue 20 part 3)."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from svc.client.kubeconfig import ClientConfig, load_kubeconfig
from svc.client.rest import RestClient

GROUP = "/apis/flowcontrol.apiserver.svc/v1"
PATH = "/api/v1/namespaces/default/configmaps"
FLOOD, VICTIM = "flood-token", "victim-token"
# Two seats for the server: every limited level gets one (nominal seats are rounded up).
ONE_SEAT_EACH = ("--max-requests-inflight=1", "--max-mutating-requests-inflight=1")


def _tokens(tmp_path: Path) -> Path:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text(f"{FLOOD},flood,1\n{VICTIM},victim,2\n")
    return tokens


def _slow_for(tmp_path: Path, user: str, seconds: float) -> Path:
    faults = tmp_path / "faults.json"
    faults.write_text(json.dumps({"rules": [{"users": [user], "delay": {"seconds": seconds}}]}))
    return faults


def _as(server, token: str) -> RestClient:
    """A client that authenticates with `token` only (the admin kubeconfig also has a client certificate)."""
    config = load_kubeconfig(server.kubeconfig)
    return RestClient(ClientConfig(server=config.server, ca_file=config.ca_file, ca_data=config.ca_data, token=token))


def _tiny_level(api, name: str, users: list[str], limit_response: dict) -> None:
    level = {
        "apiVersion": "flowcontrol.apiserver.svc/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name},
        "spec": {
            "type": "Limited",
            "limited": {
                "nominalConcurrencyShares": 1,
                "lendablePercent": 0,
                "borrowingLimitPercent": 0,
                "limitResponse": limit_response,
            },
        },
    }
    assert api.request("POST", f"{GROUP}/prioritylevelconfigurations", body=level).status == 201
    schema = {
        "apiVersion": "flowcontrol.apiserver.svc/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": {
            "priorityLevelConfiguration": {"name": name},
            "matchingPrecedence": 300,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": user}} for user in users],
                    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}],
                }
            ],
        },
    }
    assert api.request("POST", f"{GROUP}/flowschemas", body=schema).status == 201


def _wait_for_schema(server, name: str) -> None:
    controller = server.server.flowcontrol.controller
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and name not in {schema.name for schema in controller.config.schemas}:
        time.sleep(0.05)


def test_responses_name_the_flow_schema_and_priority_level(svc_server) -> None:
    api = svc_server.client()
    response = api.request("GET", PATH)
    schema = api.request("GET", f"{GROUP}/flowschemas/exempt").json()
    level = api.request("GET", f"{GROUP}/prioritylevelconfigurations/exempt").json()
    assert response.headers["X-Svc-PF-FlowSchema-UID"] == schema["metadata"]["uid"]
    assert response.headers["X-Svc-PF-PriorityLevel-UID"] == level["metadata"]["uid"]


def test_kubernetes_profile_spells_the_headers_as_upstream(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes", f"--token-auth-file={_tokens(tmp_path)}")
    response = _as(server, VICTIM).request("GET", PATH)
    schema = server.client().request("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/global-default")
    assert response.headers["X-Kubernetes-PF-FlowSchema-UID"] == schema.json()["metadata"]["uid"]


def test_a_flood_at_a_low_level_is_refused_while_another_user_is_served(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory(
        f"--token-auth-file={_tokens(tmp_path)}", f"--fault-config={_slow_for(tmp_path, 'flood', 1.0)}"
    )
    _tiny_level(
        server.client(),
        "flood",
        ["flood"],
        {"type": "Queue", "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 2}},
    )
    _wait_for_schema(server, "flood")
    with ThreadPoolExecutor(8) as pool:
        flood = [pool.submit(lambda: _as(server, FLOOD).request("GET", PATH)) for _ in range(8)]
        time.sleep(0.3)
        victim = _as(server, VICTIM).request("GET", PATH)
        answers = [future.result() for future in flood]
    assert victim.status == 200
    refused = [answer for answer in answers if answer.status == 429]
    assert refused and any(answer.status == 200 for answer in answers)
    first = refused[0]
    assert first.body == b"Too many requests, please try again later.\n"
    assert first.headers["Retry-After"].isdigit()
    assert first.headers["X-Svc-PF-FlowSchema-UID"]


def test_a_reject_level_refuses_at_once_when_its_seats_are_taken(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory(
        *ONE_SEAT_EACH, f"--token-auth-file={_tokens(tmp_path)}", f"--fault-config={_slow_for(tmp_path, 'flood', 1.0)}"
    )
    _tiny_level(server.client(), "flood", ["flood"], {"type": "Reject"})
    _wait_for_schema(server, "flood")
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(lambda: _as(server, FLOOD).request("GET", PATH))
        time.sleep(0.3)
        started = time.monotonic()
        second = _as(server, FLOOD).request("GET", PATH)
        refused_after = time.monotonic() - started
        assert first.result().status == 200
    assert second.status == 429 and refused_after < 0.9
    metrics = server.client().request("GET", "/metrics").body.decode()
    assert (
        'apiserver_flowcontrol_rejected_requests_total{flow_schema="flood",priority_level="flood",'
        'reason="concurrency-limit"} 1.0' in metrics
    )


def test_a_request_waiting_past_its_queue_deadline_gets_429(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory(
        f"--token-auth-file={_tokens(tmp_path)}",
        f"--fault-config={_slow_for(tmp_path, 'flood', 1.5)}",
        "--request-timeout=2s",
        *ONE_SEAT_EACH,
    )
    _tiny_level(
        server.client(),
        "flood",
        ["flood"],
        {"type": "Queue", "queuing": {"queues": 1, "handSize": 1, "queueLengthLimit": 10}},
    )
    _wait_for_schema(server, "flood")
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(lambda: _as(server, FLOOD).request("GET", PATH))
        time.sleep(0.3)
        second = _as(server, FLOOD).request("GET", PATH)
        assert first.result().status == 200
    assert second.status == 429
    metrics = server.client().request("GET", "/metrics").body.decode()
    assert 'reason="time-out"} 1.0' in metrics


def test_the_debug_dumps_list_levels_and_queues(svc_server) -> None:
    api = svc_server.client()
    levels = api.request("GET", "/debug/api_priority_and_fairness/dump_priority_levels")
    assert levels.status == 200
    lines = levels.body.decode().splitlines()
    assert lines[0].split(",")[0] == "PriorityLevelName"
    assert any(line.startswith("global-default,") for line in lines)
    queues = api.request("GET", "/debug/api_priority_and_fairness/dump_queues").body.decode().splitlines()
    assert sum(line.startswith("global-default,") for line in queues) == 128
    requests = api.request(
        "GET", "/debug/api_priority_and_fairness/dump_requests", params={"includeRequestDetails": "1"}
    )
    assert requests.body.decode().splitlines()[0].rstrip().endswith("UserName, Verb, APIPath")


def test_seat_metrics_are_published(svc_server) -> None:
    metrics = svc_server.client().request("GET", "/metrics").body.decode()
    assert 'apiserver_flowcontrol_nominal_limit_seats{priority_level="global-default"} 49.0' in metrics
    assert 'apiserver_flowcontrol_dispatched_requests_total{flow_schema="exempt",priority_level="exempt"}' in metrics


def test_without_apf_the_read_only_limit_refuses_with_429(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory(
        "--enable-priority-and-fairness=false",
        "--max-requests-inflight=1",
        f"--token-auth-file={_tokens(tmp_path)}",
        f"--fault-config={_slow_for(tmp_path, 'flood', 1.0)}",
    )
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(lambda: _as(server, FLOOD).request("GET", PATH))
        time.sleep(0.3)
        second = _as(server, VICTIM).request("GET", PATH)
        admin = server.client().request("GET", PATH)
        assert first.result().status == 200
    assert second.status == 429
    assert second.headers["Retry-After"] == "1"
    assert second.body == b"Too many requests, please try again later.\n"
    assert "X-Svc-PF-FlowSchema-UID" not in second.headers
    assert admin.status == 200  # system:masters is always served


def test_without_apf_mutating_requests_have_their_own_limit(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory(
        "--enable-priority-and-fairness=false",
        "--max-mutating-requests-inflight=1",
        f"--token-auth-file={_tokens(tmp_path)}",
        f"--fault-config={_slow_for(tmp_path, 'flood', 1.0)}",
    )
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}}
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(lambda: _as(server, FLOOD).request("POST", PATH, body=body))
        time.sleep(0.3)
        other = {**body, "metadata": {"name": "two"}}
        refused = _as(server, VICTIM).request("POST", PATH, body=other)
        read = _as(server, VICTIM).request("GET", PATH)
        assert first.result().status == 201
    assert refused.status == 429 and read.status == 200


def test_a_watch_gives_its_seat_back_once_it_has_started(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory(*ONE_SEAT_EACH, f"--token-auth-file={_tokens(tmp_path)}")
    _tiny_level(server.client(), "flood", ["flood"], {"type": "Reject"})
    _wait_for_schema(server, "flood")
    watcher = _as(server, FLOOD)
    watcher.timeout = 30.0
    stream = watcher.stream(PATH, params={"watch": "true", "timeoutSeconds": "10"})
    try:
        assert _as(server, FLOOD).request("GET", PATH).status == 200
    finally:
        stream.close()


def test_executing_gauges_follow_a_running_request(svc_server_factory, tmp_path) -> None:
    server = svc_server_factory(
        f"--token-auth-file={_tokens(tmp_path)}", f"--fault-config={_slow_for(tmp_path, 'flood', 1.0)}"
    )
    series = '{flow_schema="global-default",priority_level="global-default"}'

    def gauges() -> tuple[str, str]:
        """The two gauges' values ("absent" until the level has served a request)."""
        metrics = server.client().request("GET", "/metrics").body.decode()
        return tuple(  # type: ignore[return-value]
            next((line.split()[-1] for line in metrics.splitlines() if line.startswith(name + series)), "absent")
            for name in (
                "apiserver_flowcontrol_current_executing_requests",
                "apiserver_flowcontrol_current_executing_seats",
            )
        )

    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(lambda: _as(server, FLOOD).request("GET", PATH))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and gauges() != ("1.0", "1.0"):
            time.sleep(0.05)
        assert gauges() == ("1.0", "1.0")
        assert slow.result().status == 200
    assert gauges() == ("0.0", "0.0")
