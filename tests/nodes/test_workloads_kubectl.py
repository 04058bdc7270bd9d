"""Workloads rolled out for real: kubectl 1.35 against the server, the controller daemon and
simulated nodes."""

from __future__ import annotations

import pytest

from tests.e2e.kubectl_runner import Kubectl


@pytest.fixture
def kubectl(svc_server_factory, svc_controller_manager, svc_nodes, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--brand-profile=kubernetes")
    svc_nodes(server, "--brand-profile=kubernetes", count=3)
    return Kubectl(kubectl_binary, server.kubeconfig)


def test_a_deployment_rolls_out_rolls_forward_and_back(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "web", "--image=nginx:1.25", "--replicas=3")
    done = kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")
    assert 'deployment "web" successfully rolled out' in done.stdout
    ready = kubectl.run("get", "deployment", "web", "-o", "jsonpath={.status.readyReplicas}").stdout
    assert ready == "3"

    kubectl.run("set", "image", "deployment/web", "nginx=nginx:1.26")
    kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")
    images = kubectl.run("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.containers[0].image}")
    assert images.stdout.split() == ["nginx:1.26"] * 3
    assert kubectl.run("get", "replicasets", "-l", "app=web", "--no-headers").stdout.count("\n") == 2

    kubectl.run("rollout", "undo", "deployment/web")
    kubectl.run("rollout", "status", "deployment/web", "--timeout=60s")
    image = kubectl.run("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
    assert image.stdout == "nginx:1.25"
    revision = kubectl.run(
        "get", "deployment", "web", "-o", "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}"
    )
    assert revision.stdout == "3"


def test_scaling_a_deployment_changes_its_pods(kubectl: Kubectl) -> None:
    kubectl.run("create", "deployment", "api", "--image=nginx", "--replicas=1")
    kubectl.run("rollout", "status", "deployment/api", "--timeout=60s")
    kubectl.run("scale", "deployment/api", "--replicas=4")
    kubectl.run("rollout", "status", "deployment/api", "--timeout=60s")
    kubectl.run("wait", "--for=jsonpath={.status.availableReplicas}=4", "deployment/api", "--timeout=60s")
    pods = kubectl.run("get", "pods", "-l", "app=api", "--no-headers").stdout.splitlines()
    assert len(pods) == 4
    assert all(" Running " in line for line in pods)


def test_kubectl_delete_pod_waits_until_the_kubelet_removed_a_running_pod(kubectl: Kubectl) -> None:
    kubectl.run("run", "web", "--image=nginx", "--restart=Always")
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=60s")
    deleted = kubectl.run("delete", "pod", "web", "--timeout=60s")
    assert deleted.stdout.startswith('pod "web" deleted')
    gone = kubectl.run("get", "pod", "web", check=False)
    assert 'pods "web" not found' in gone.stderr
