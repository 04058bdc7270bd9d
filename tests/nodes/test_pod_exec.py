"""`pods/exec` and `pods/attach` over WebSocket with kubectl and the official Python client, against
the simulated kubelet's canned shell."""

from __future__ import annotations

import pytest
from kubernetes import client as k8s
from kubernetes import config
from kubernetes.stream import stream

from tests.e2e.kubectl_runner import Kubectl


@pytest.fixture
def server(svc_server_factory, svc_nodes):
    running = svc_server_factory("--brand-profile=kubernetes")
    svc_nodes(running, "--brand-profile=kubernetes", count=1)
    return running


@pytest.fixture
def kubectl(server, kubectl_binary):
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("run", "web", "--image=nginx")
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    return kubectl


def test_a_websocket_exec_also_needs_the_create_permission(svc_server_factory, svc_nodes, kubectl_binary):
    running = svc_server_factory("--brand-profile=kubernetes", "--authorization-mode=RBAC")
    svc_nodes(running, "--brand-profile=kubernetes", count=1)
    admin = Kubectl(kubectl_binary, running.kubeconfig)
    admin.run("run", "web", "--image=nginx")
    admin.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    admin.run("create", "role", "peek", "--verb=get", "--resource=pods,pods/exec")
    admin.run("create", "rolebinding", "peek", "--role=peek", "--user=jane")
    result = admin.run("--as=jane", "exec", "web", "--", "hostname", check=False)
    assert result.returncode != 0
    assert 'User "jane" cannot create resource "pods/exec" in API group "" in the namespace "default"' in result.stderr


def test_kubectl_exec_prints_the_commands_output(kubectl):
    assert kubectl.run("exec", "web", "--", "echo", "hi").stdout == "hi\n"


def test_kubectl_exec_reports_a_non_zero_exit_code(kubectl):
    result = kubectl.run("exec", "web", "--", "sh", "-c", "exit 3", check=False)
    assert result.returncode == 3
    assert "command terminated with exit code 3" in result.stderr


def test_kubectl_exec_into_an_unknown_container_is_refused(kubectl):
    result = kubectl.run("exec", "web", "-c", "nope", "--", "hostname", check=False)
    assert result.returncode != 0
    assert "container nope is not valid for pod web" in result.stderr


def test_kubectl_attach_relays_stdin_to_the_container(kubectl):
    result = kubectl.run("attach", "-i", "web", stdin="ping\n")
    assert result.stdout == "ping\n"


def test_the_python_client_streams_an_exec(server, kubectl, tmp_path):
    configuration = k8s.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration, temp_file_path=str(tmp_path))
    with k8s.ApiClient(configuration) as api_client:
        api = k8s.CoreV1Api(api_client)
        output = stream(
            api.connect_get_namespaced_pod_exec,
            "web",
            "default",
            command=["hostname"],
            stderr=True,
            stdin=False,
            stdout=True,
            tty=False,
        )
    assert output == "web\n"


def test_an_exec_request_that_is_not_an_upgrade_is_a_bad_request(server, kubectl, tmp_path):
    configuration = k8s.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration, temp_file_path=str(tmp_path))
    with k8s.ApiClient(configuration) as api_client:
        api = k8s.CoreV1Api(api_client)
        with pytest.raises(k8s.ApiException) as raised:
            api.connect_get_namespaced_pod_exec("web", "default", command=["hostname"], stdout=True)
    assert raised.value.status == 400
    assert "Upgrade request required" in raised.value.body


def test_kubectl_exec_falls_back_to_spdy(server, kubectl):
    result = kubectl.run(
        "exec", "web", "--", "echo", "over", "spdy", env={"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"}
    )
    assert result.stdout == "over spdy\n"


def test_kubectl_exec_over_spdy_reports_a_non_zero_exit_code(server, kubectl):
    result = kubectl.run(
        "exec", "web", "--", "sh", "-c", "exit 4", check=False, env={"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"}
    )
    assert result.returncode == 4


def test_kubectl_attach_over_spdy_relays_stdin(server, kubectl):
    result = kubectl.run("attach", "-i", "web", stdin="pong\n", env={"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"})
    assert result.stdout == "pong\n"


def test_a_megabyte_of_stdin_comes_back_through_kubectl_attach_over_spdy(server, kubectl):
    text = "".join(f"line {n:07d}\n" for n in range(1024 * 1024 // 13))
    result = kubectl.run("attach", "-i", "web", stdin=text, env={"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"})
    assert result.stdout == text
