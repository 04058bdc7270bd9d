"""Audit (issue 20): the policy's level decides which events a request writes and what they hold;
every answer names its event with `Audit-ID`; a bad policy stops the server at start."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

POLICY = """
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  resources: [{group: "", resources: [pods]}]
- level: Metadata
  resources: [{group: "", resources: [secrets]}]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
"""
SECRETS = "/api/v1/namespaces/default/secrets"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def _audited_server(factory: Any, tmp_path: Path, policy: str = POLICY) -> tuple[Any, Path]:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(policy)
    log = tmp_path / "audit.log"
    return factory(f"--audit-policy-file={policy_file}", f"--audit-log-path={log}"), log


def _events(log: Path, audit_id: str, count: int) -> list[dict[str, Any]]:
    """The events of one request, waiting (bounded) for `count` of them (batch mode writes later)."""
    deadline = time.monotonic() + 10
    for _ in range(200):
        lines = log.read_text().splitlines() if log.exists() else []
        found = [event for event in map(json.loads, lines) if event["auditID"] == audit_id]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)
    return found


def test_metadata_level_for_secrets_logs_no_objects(svc_server_factory, tmp_path) -> None:
    server, log = _audited_server(svc_server_factory, tmp_path)
    client = server.client()
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v"}}
    answer = client.request("POST", SECRETS, body=body)
    assert answer.status == 201
    (event,) = _events(log, answer.headers["Audit-ID"], 1)
    assert event["level"] == "Metadata"
    assert event["stage"] == "ResponseComplete"
    assert event["verb"] == "create"
    assert event["objectRef"] == {"resource": "secrets", "namespace": "default", "name": "s", "apiVersion": "v1"}
    assert event["responseStatus"]["code"] == 201
    assert event["annotations"]["authorization.k8s.io/decision"] == "allow"
    assert "requestObject" not in event and "responseObject" not in event
    assert event["requestURI"] == SECRETS
    assert event["sourceIPs"] == ["127.0.0.1"]
    assert event["user"]["username"]


def test_request_response_level_for_configmaps_logs_both_objects(svc_server_factory, tmp_path) -> None:
    server, log = _audited_server(svc_server_factory, tmp_path)
    client = server.client()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    assert client.request("POST", CONFIGMAPS, body=body).status == 201
    answer = client.request("GET", f"{CONFIGMAPS}/c")
    (event,) = _events(log, answer.headers["Audit-ID"], 1)
    assert event["level"] == "RequestResponse"
    assert event["verb"] == "get"
    assert event["responseObject"]["data"] == {"k": "v"}
    assert "requestObject" not in event
    created = client.request("POST", CONFIGMAPS, body={**body, "metadata": {"name": "d"}})
    (event,) = _events(log, created.headers["Audit-ID"], 1)
    assert event["requestObject"]["metadata"]["name"] == "d"
    assert event["responseObject"]["metadata"]["uid"] == created.json()["metadata"]["uid"]


def test_a_none_rule_writes_no_event_but_the_answer_has_an_audit_id(svc_server_factory, tmp_path) -> None:
    server, log = _audited_server(svc_server_factory, tmp_path)
    client = server.client()
    answer = client.request("GET", "/api/v1/namespaces/default/pods")
    assert answer.status == 200
    audit_id = answer.headers["Audit-ID"]
    marker = client.request("GET", f"{SECRETS}/missing")
    assert marker.status == 404
    assert _events(log, marker.headers["Audit-ID"], 1)  # the writer has caught up with the later request
    assert _events(log, audit_id, 0) == []


def test_stages_and_error_status_of_a_failed_request(svc_server_factory, tmp_path) -> None:
    server, log = _audited_server(svc_server_factory, tmp_path, POLICY.replace("omitStages: [RequestReceived]", ""))
    answer = server.client().request("GET", f"{SECRETS}/missing", headers={"Audit-ID": "chosen-id"})
    assert answer.status == 404
    assert answer.headers["Audit-ID"] == "chosen-id"
    events = _events(log, "chosen-id", 2)
    assert [event["stage"] for event in events] == ["RequestReceived", "ResponseComplete"]
    assert "responseStatus" not in events[0]
    assert events[1]["responseStatus"]["reason"] == "NotFound"
    assert events[1]["responseStatus"]["code"] == 404


def test_a_read_at_metadata_level_writes_both_stages_with_the_authorization_decision(
    svc_server_factory, tmp_path
) -> None:
    server, log = _audited_server(svc_server_factory, tmp_path, POLICY.replace("omitStages: [RequestReceived]", ""))
    client = server.client()
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v"}}
    assert client.request("POST", SECRETS, body=body).status == 201
    answer = client.request("GET", f"{SECRETS}/s")
    assert answer.status == 200
    events = _events(log, answer.headers["Audit-ID"], 2)
    assert [event["stage"] for event in events] == ["RequestReceived", "ResponseComplete"]
    assert events[0]["requestReceivedTimestamp"] == events[1]["requestReceivedTimestamp"]
    assert events[1]["responseStatus"] == {"metadata": {}, "code": 200}
    assert events[1]["annotations"]["authorization.k8s.io/decision"] == "allow"
    assert "annotations" not in events[0]


def test_an_answer_comes_after_its_events_are_written(svc_server_factory, tmp_path) -> None:
    server, log = _audited_server(svc_server_factory, tmp_path, POLICY.replace("omitStages: [RequestReceived]", ""))
    answer = server.client().request("GET", f"{SECRETS}/missing")
    lines = log.read_text().splitlines()  # read once, at once: the blocking mode wrote before answering
    stages = [event["stage"] for event in map(json.loads, lines) if event["auditID"] == answer.headers["Audit-ID"]]
    assert stages == ["RequestReceived", "ResponseComplete"]


def test_a_bad_policy_exits_2_with_one_line(tmp_path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n")
    result = subprocess.run(
        [sys.executable, "-m", "svc.apiserver", f"--audit-policy-file={policy}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert 'rules[0].level: Unsupported value: "Loud"' in line


def test_a_watch_writes_response_started_and_carries_the_audit_id(svc_server_factory, tmp_path) -> None:
    server, log = _audited_server(svc_server_factory, tmp_path, POLICY.replace("omitStages: [RequestReceived]", ""))
    answer = server.client().request("GET", SECRETS, params={"watch": "true", "timeoutSeconds": "1"})
    assert answer.status == 200
    events = _events(log, answer.headers["Audit-ID"], 3)
    assert [event["stage"] for event in events] == ["RequestReceived", "ResponseStarted", "ResponseComplete"]
    assert events[1]["responseStatus"]["code"] == 200
    assert events[2]["verb"] == "watch"


def test_admission_audit_annotations_reach_the_event(svc_server_factory, tmp_path) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(POLICY)
    log = tmp_path / "audit.log"
    server = svc_server_factory(
        "--brand-profile=kubernetes", f"--audit-policy-file={policy_file}", f"--audit-log-path={log}"
    )
    client = server.client()
    admission = "/apis/admissionregistration.k8s.io/v1"
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    vap = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {"resourceRules": rules},
            "validations": [{"expression": "true"}],
            "auditAnnotations": [{"key": "size", "valueExpression": "string(size(object.data))"}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": ["Audit"]},
    }
    assert client.request("POST", f"{admission}/validatingadmissionpolicies", body=vap).status == 201
    assert client.request("POST", f"{admission}/validatingadmissionpolicybindings", body=binding).status == 201
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    answer = client.request("POST", CONFIGMAPS, body=body)
    assert answer.status == 201, answer.body
    (event,) = _events(log, answer.headers["Audit-ID"], 1)
    assert event["annotations"]["p/size"] == "1"


def _metric(server: Any, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = server.client().request("GET", "/metrics").body.decode()
    samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]
    return sum(s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def test_events_and_policy_levels_are_counted(svc_server_factory, tmp_path) -> None:
    server, _ = _audited_server(svc_server_factory, tmp_path)
    client = server.client()
    before = _metric(server, "apiserver_audit_event_total")
    assert client.request("GET", f"{SECRETS}/missing").status == 404
    assert client.request("GET", "/api/v1/namespaces/default/pods").status == 200
    # The secret GET writes ResponseComplete (RequestReceived is omitted); the pods GET writes nothing;
    # the scrape before is audited at the policy's default level, None.
    assert _metric(server, "apiserver_audit_event_total") == before + 1
    assert _metric(server, "apiserver_audit_level_total", level="Metadata") == 1
    assert _metric(server, "apiserver_audit_level_total", level="None") >= 2


def test_an_event_that_cannot_be_written_is_counted_as_an_error(tmp_path) -> None:
    from svc.apiserver.audit.log_backend import LogBackend

    errors: list[int] = []
    backend = LogBackend("/dev/full", on_error=lambda: errors.append(1))  # every write: no space left
    backend.process({"auditID": "a"})
    backend.shutdown()
    assert errors == [1]
