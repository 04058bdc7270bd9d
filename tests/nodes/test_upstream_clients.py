"""Upstream clients against simulated nodes: kubectl's pod flows and the official Python client's."""

from __future__ import annotations

import time

import pytest
from kubernetes import client as k8s
from kubernetes import config

from tests.e2e.kubectl_runner import Kubectl


@pytest.fixture
def server(svc_server_factory, svc_nodes):
    running = svc_server_factory("--brand-profile=kubernetes")
    svc_nodes(running, "--brand-profile=kubernetes", count=2)
    return running


def test_kubectl_runs_a_pod_waits_for_it_and_reads_its_log(server, kubectl_binary):
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("run", "web", "--image=nginx", "--annotations=simulator.svc.io/log=hello from web")
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    assert kubectl.run("logs", "web").stdout == "hello from web\n"
    nodes = kubectl.run("get", "nodes", "--no-headers").stdout.splitlines()
    assert [line.split()[:2] for line in nodes] == [["node-0", "Ready"], ["node-1", "Ready"]]


def test_the_python_client_creates_a_pod_waits_for_running_and_reads_its_log(server, tmp_path):
    configuration = k8s.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration, temp_file_path=str(tmp_path))
    with k8s.ApiClient(configuration) as api_client:
        api = k8s.CoreV1Api(api_client)
        body = k8s.V1Pod(
            metadata=k8s.V1ObjectMeta(name="job", annotations={"simulator.svc.io/log": "line"}),
            spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="main", image="busybox")]),
        )
        api.create_namespaced_pod("default", body)
        deadline = time.monotonic() + 30
        phase = ""
        while time.monotonic() < deadline and phase != "Running":
            phase = api.read_namespaced_pod("job", "default").status.phase
            time.sleep(0.05)
        assert phase == "Running"
        assert api.read_namespaced_pod_log("job", "default") == "line\n"
