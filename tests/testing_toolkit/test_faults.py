"""Fault injection: `--fault-config` and `/testing/v1/faults` answer matching requests with an
error, a delay or a dropped watch."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException

from svc.apiserver.options import parse_options
from tests.apiserver.watch_client import WatchReader

FLAG = "--enable-test-endpoints"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
FAULTS = "/testing/v1/faults"


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory(FLAG, "--brand-profile=kubernetes")


@pytest.fixture
def api(server):
    return server.client()


def _faults(api, *rules: dict) -> None:
    response = api.request("PUT", FAULTS, body={"seed": 7, "rules": list(rules)})
    assert response.status == 200, response.body


def _configmap(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


def test_an_error_rule_answers_with_its_status(api) -> None:
    _faults(api, {"verbs": ["create"], "resources": ["configmaps"], "error": {"code": 500, "message": "boom"}})
    response = api.request("POST", CONFIGMAPS, body=_configmap("a"))
    assert response.status == 500
    body = response.json()
    assert (body["kind"], body["reason"], body["message"], body["code"]) == ("Status", "InternalError", "boom", 500)
    assert api.request("GET", f"{CONFIGMAPS}/a").status == 404


def test_a_429_carries_retry_after(api) -> None:
    _faults(api, {"error": {"code": 429, "retryAfterSeconds": 3}})
    response = api.request("GET", CONFIGMAPS)
    assert response.status == 429
    assert response.headers["Retry-After"] == "3"
    assert response.json()["details"] == {"retryAfterSeconds": 3}
    assert response.json()["reason"] == "TooManyRequests"


def test_rules_match_resource_namespace_name_and_user(api) -> None:
    _faults(
        api,
        {
            "resources": ["configmaps"],
            "namespaces": ["default"],
            "names": ["target"],
            "users": ["alice"],
            "error": {"code": 409, "message": "injected"},
        },
    )
    alice = {"Impersonate-User": "alice", "Impersonate-Group": "system:masters"}
    api.request("POST", CONFIGMAPS, body=_configmap("target"))
    assert api.request("GET", f"{CONFIGMAPS}/target").status == 200
    assert api.request("GET", f"{CONFIGMAPS}/target", headers=alice).status == 409
    assert api.request("GET", f"{CONFIGMAPS}/other", headers=alice).status == 404
    assert api.request("GET", "/api/v1/namespaces/kube-system/configmaps/target", headers=alice).status == 404
    assert api.request("GET", "/api/v1/namespaces/default/secrets/target", headers=alice).status == 404


def test_group_resources_are_named_group_slash_resource(api) -> None:
    _faults(api, {"resources": ["apps/deployments"], "error": {"code": 503}})
    assert api.request("GET", "/apis/apps/v1/namespaces/default/deployments").status == 503
    assert api.request("GET", CONFIGMAPS).status == 200


def test_a_count_limits_how_often_a_rule_fires(api) -> None:
    _faults(api, {"verbs": ["list"], "count": 2, "error": {"code": 500}})
    codes = [api.request("GET", CONFIGMAPS).status for _ in range(4)]
    assert codes == [500, 500, 200, 200]
    assert api.request("GET", FAULTS).json()["rules"][0]["count"] == 0


def test_a_probability_fires_on_some_requests_only(api) -> None:
    _faults(api, {"verbs": ["list"], "probability": 0.5, "error": {"code": 500}})
    codes = {api.request("GET", CONFIGMAPS).status for _ in range(40)}
    assert codes == {200, 500}


def test_a_delay_adds_latency(api) -> None:
    _faults(api, {"verbs": ["get"], "delay": {"seconds": 0.5}})
    api.request("POST", CONFIGMAPS, body=_configmap("slow"))
    started = time.monotonic()
    assert api.request("GET", f"{CONFIGMAPS}/slow").status == 200
    assert time.monotonic() - started >= 0.5


def test_a_dropped_watch_ends_its_stream(api) -> None:
    _faults(api, {"resources": ["configmaps"], "dropWatch": {"afterSeconds": 1}})
    reader = WatchReader(api, CONFIGMAPS, {"timeoutSeconds": 600})
    api.request("POST", CONFIGMAPS, body=_configmap("seen"))
    assert reader.next(timeout=10)["object"]["metadata"]["name"] == "seen"
    assert reader.next(timeout=10) is None


def test_rules_change_at_run_time(api) -> None:
    _faults(api, {"error": {"code": 500}})
    assert api.request("GET", CONFIGMAPS).status == 500
    listed = api.request("GET", FAULTS).json()
    assert listed["rules"][0]["error"]["reason"] == "InternalError"
    assert api.request("DELETE", FAULTS).json() == {"rules": []}
    assert api.request("GET", CONFIGMAPS).status == 200


def test_a_bad_rule_at_run_time_is_a_400(api) -> None:
    response = api.request("PUT", FAULTS, body={"rules": [{"error": {"code": 200}}]})
    assert response.status == 400
    assert "rules[0].error.code" in response.json()["message"]


def test_non_masters_get_403(api) -> None:
    bob = {"Impersonate-User": "bob"}
    response = api.request("PUT", FAULTS, body={"rules": []}, headers=bob)
    assert response.status == 403
    assert api.request("GET", FAULTS, headers=bob).status == 403


def test_the_config_file_sets_rules_at_start(svc_server_factory, tmp_path) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text("rules:\n- verbs: [list]\n  error: {code: 503, message: down}\n")
    server = svc_server_factory(f"--fault-config={path}")
    response = server.client().request("GET", CONFIGMAPS)
    assert (response.status, response.json()["reason"]) == (503, "ServiceUnavailable")


@pytest.mark.parametrize(
    "text",
    ["rules: [{error: {code: 500}, delay: {seconds: 1}}]", "rules: [{probability: 2, error: {}}]", "rules: {", "x: 1"],
)
def test_a_bad_config_file_exits_2(tmp_path, text: str, capsys) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text(text)
    with pytest.raises(SystemExit) as exited:
        parse_options([f"--fault-config={path}"])
    assert exited.value.code == 2
    assert "--fault-config" in capsys.readouterr().err


def test_the_python_client_sees_an_injected_500(server, api) -> None:
    _faults(api, {"verbs": ["list"], "count": 1, "error": {"code": 500, "message": "injected"}})
    core = k8s.CoreV1Api(k8s_config.new_client_from_config(config_file=str(server.kubeconfig)))
    with pytest.raises(ApiException) as failed:
        core.list_namespaced_config_map("default")
    assert (failed.value.status, failed.value.reason) == (500, "Internal Server Error")
    assert json.loads(failed.value.body)["reason"] == "InternalError"
    assert core.list_namespaced_config_map("default").items == []


def test_the_python_client_waits_out_an_injected_429(server, api) -> None:
    """Its HTTP library (urllib3) retries a 429 after its Retry-After, as against kube-apiserver."""
    _faults(api, {"verbs": ["list"], "count": 1, "error": {"code": 429, "retryAfterSeconds": 1}})
    core = k8s.CoreV1Api(k8s_config.new_client_from_config(config_file=str(server.kubeconfig)))
    started = time.monotonic()
    assert core.list_namespaced_config_map("default").items == []
    assert time.monotonic() - started >= 1
    assert api.request("GET", FAULTS).json()["rules"][0]["count"] == 0


def test_kubectl_reports_an_injected_500_as_upstream(server, api, kubectl_binary) -> None:
    _faults(api, {"verbs": ["get"], "resources": ["configmaps"], "error": {"code": 500, "message": "injected"}})
    done = subprocess.run(
        [kubectl_binary, "--kubeconfig", str(server.kubeconfig), "get", "configmap", "x"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "Error from server (InternalError): injected"


def test_kubectl_retries_an_injected_429_after_its_retry_after(server, api, kubectl_binary) -> None:
    _faults(api, {"resources": ["configmaps"], "count": 1, "error": {"code": 429, "retryAfterSeconds": 1}})
    done = subprocess.run(
        [kubectl_binary, "--kubeconfig", str(server.kubeconfig), "get", "configmap", "x"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stderr.strip() == 'Error from server (NotFound): configmaps "x" not found'
    assert api.request("GET", FAULTS).json()["rules"][0]["count"] == 0


def test_the_program_stops_with_exit_2_on_a_bad_config(tmp_path) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text("rules: [{delay: {seconds: -1}}]")
    flags = [f"--fault-config={path}", f"--data-dir={tmp_path / 'data'}"]
    done = subprocess.run(
        [sys.executable, "-m", "svc.apiserver", *flags], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr == f"Error: --fault-config: {path}: rules[0].delay.seconds: must be a non-negative number\n"
