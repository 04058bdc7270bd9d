"""StatefulSets for real: ordered creation, stable names and claims, rolling updates, with kubectl 1.35."""

from __future__ import annotations

import time

import pytest

from tests.e2e.kubectl_runner import Kubectl

STATEFULSET = """
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 3
  selector:
    matchLabels: {app: db}
  persistentVolumeClaimRetentionPolicy: {whenScaled: Delete}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: db:1
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
"""


@pytest.fixture
def kubectl(svc_server_factory, svc_controller_manager, svc_nodes, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--brand-profile=kubernetes", "--controllers=statefulset,garbagecollector")
    svc_nodes(server, "--brand-profile=kubernetes", count=2)
    return Kubectl(kubectl_binary, server.kubeconfig)


def claim_going(kubectl: Kubectl, name: str) -> bool:
    """The claim is gone or being deleted (its pvc-protection finalizer waits for that controller)."""
    for _ in range(120):
        found = kubectl.run("get", "pvc", name, "-o", "jsonpath={.metadata.deletionTimestamp}", check=False)
        if found.returncode != 0 or found.stdout:
            return True
        time.sleep(0.5)
    return False


def created_order(kubectl: Kubectl) -> list[str]:
    listed = kubectl.run(
        "get",
        "pods",
        "-l",
        "app=db",
        "--sort-by=.metadata.creationTimestamp",
        "-o",
        "jsonpath={.items[*].metadata.name}",
    )
    return listed.stdout.split()


def test_a_statefulset_comes_up_in_order_with_its_claims(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=STATEFULSET)
    kubectl.run("rollout", "status", "statefulset/db", "--timeout=60s")
    assert created_order(kubectl) == ["db-0", "db-1", "db-2"]
    claims = kubectl.run("get", "pvc", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    assert sorted(claims) == ["data-db-0", "data-db-1", "data-db-2"]
    hostname = kubectl.run("get", "pod", "db-1", "-o", "jsonpath={.spec.hostname}.{.spec.subdomain}").stdout
    assert hostname == "db-1.db"


def test_a_rolling_update_replaces_pods_and_scaling_down_removes_the_highest(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=STATEFULSET)
    kubectl.run("rollout", "status", "statefulset/db", "--timeout=60s")
    kubectl.run("set", "image", "statefulset/db", "db=db:2")
    kubectl.run("rollout", "status", "statefulset/db", "--timeout=90s")
    images = kubectl.run("get", "pods", "-l", "app=db", "-o", "jsonpath={.items[*].spec.containers[0].image}")
    assert images.stdout.split() == ["db:2"] * 3
    kubectl.run("scale", "statefulset/db", "--replicas=1")
    kubectl.run("wait", "--for=delete", "pod/db-2", "pod/db-1", "--timeout=60s")
    assert claim_going(kubectl, "data-db-2")
    assert kubectl.run("get", "pods", "-l", "app=db", "-o", "jsonpath={.items[*].metadata.name}").stdout == "db-0"
