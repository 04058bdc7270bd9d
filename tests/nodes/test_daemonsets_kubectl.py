"""DaemonSets for real: one pod per eligible simulated node, rolled by kubectl 1.35."""

from __future__ import annotations

import pytest

from tests.e2e.kubectl_runner import Kubectl

DAEMONSET = """
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: agent:1
"""


@pytest.fixture
def kubectl(svc_server_factory, svc_controller_manager, svc_nodes, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--brand-profile=kubernetes", "--controllers=daemonset,garbagecollector")
    svc_nodes(server, "--brand-profile=kubernetes", count=3)
    return Kubectl(kubectl_binary, server.kubeconfig)


def pods_by_node(kubectl: Kubectl) -> list[str]:
    listed = kubectl.run("get", "pods", "-l", "app=agent", "-o", "jsonpath={.items[*].spec.nodeName}")
    return sorted(listed.stdout.split())


def test_a_daemonset_runs_one_pod_per_node_and_rolls_out_a_new_image(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=DAEMONSET)
    kubectl.run("rollout", "status", "daemonset/agent", "--timeout=60s")
    assert pods_by_node(kubectl) == ["node-0", "node-1", "node-2"]
    kubectl.run("set", "image", "daemonset/agent", "agent=agent:2")
    kubectl.run("rollout", "status", "daemonset/agent", "--timeout=60s")
    images = kubectl.run("get", "pods", "-l", "app=agent", "-o", "jsonpath={.items[*].spec.containers[0].image}")
    assert images.stdout.split() == ["agent:2"] * 3
    history = kubectl.run("rollout", "history", "daemonset/agent").stdout
    assert "1 " in history and "2 " in history


def test_a_tainted_node_gets_no_daemon_pod(kubectl: Kubectl) -> None:
    kubectl.run("taint", "node", "node-1", "dedicated=db:NoSchedule")
    kubectl.run("apply", "-f", "-", stdin=DAEMONSET)
    kubectl.run("rollout", "status", "daemonset/agent", "--timeout=60s")
    assert pods_by_node(kubectl) == ["node-0", "node-2"]
    desired = kubectl.run("get", "daemonset", "agent", "-o", "jsonpath={.status.desiredNumberScheduled}").stdout
    assert desired == "2"
