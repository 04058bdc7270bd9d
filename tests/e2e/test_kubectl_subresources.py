"""kubectl flows over the subresources the API server serves itself: debug (ephemeral containers),
certificate approve and deny, and drain (eviction against a PodDisruptionBudget)."""

from __future__ import annotations

import json

import pytest

from tests.apiserver.test_csr_subresources import certificate_request
from tests.e2e.kubectl_runner import Kubectl

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeName: n1
  containers: [{name: app, image: nginx}]
"""


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(kubectl_binary, server.kubeconfig)


def test_debug_adds_an_ephemeral_container(kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=POD)
    kubectl.run("debug", "web", "--image=busybox", "--container=dbg")
    pod = json.loads(kubectl.run("get", "pod", "web", "-o", "json").stdout)
    assert [(c["name"], c["image"]) for c in pod["spec"]["ephemeralContainers"]] == [("dbg", "busybox")]


def test_debug_of_a_static_pod_is_refused(kubectl) -> None:
    static = POD.replace("{name: web,", "{name: web, annotations: {kubernetes.io/config.mirror: hash},")
    kubectl.run("apply", "-f", "-", stdin=static)
    refused = kubectl.run("debug", "web", "--image=busybox", "--container=dbg", check=False)
    assert refused.returncode != 0
    assert 'Pod "web" is invalid: []: Forbidden: static pods do not support ephemeral containers' in refused.stderr


def test_resize_of_a_static_pod_is_refused(kubectl) -> None:
    static = POD.replace("{name: web,", "{name: web, annotations: {kubernetes.io/config.mirror: hash},")
    kubectl.run("apply", "-f", "-", stdin=static)
    patch = {"spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "100m"}}}]}}
    refused = kubectl.run("patch", "pod", "web", "--subresource=resize", "-p", json.dumps(patch), check=False)
    assert refused.returncode != 0
    assert 'Pod "web" is invalid: []: Forbidden: static pods cannot be resized' in refused.stderr


def _csr(kubectl, name: str) -> None:
    manifest = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {
            "request": certificate_request(name),
            "signerName": "kubernetes.io/kube-apiserver-client",
            "usages": ["client auth"],
        },
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(manifest))


def test_certificate_approve_and_deny(kubectl) -> None:
    _csr(kubectl, "alice")
    _csr(kubectl, "bob")
    assert "approved" in kubectl.run("certificate", "approve", "alice").stdout
    assert "denied" in kubectl.run("certificate", "deny", "bob").stdout
    rows = kubectl.run("get", "csr", "--no-headers").stdout.splitlines()
    conditions = {row.split()[0]: row.split()[-1] for row in rows}
    assert conditions == {"alice": "Approved", "bob": "Denied"}
    alice = json.loads(kubectl.run("get", "csr", "alice", "-o", "json").stdout)
    assert alice["status"]["conditions"][0]["reason"] == "KubectlApprove"


def _running(kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=POD)
    status = {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}
    kubectl.run("patch", "pod", "web", "--subresource=status", "--type=merge", "-p", json.dumps(status))
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    kubectl.run("create", "-f", "-", stdin=json.dumps(node))
    budget = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(budget))


def _budget_status(kubectl, allowed: int) -> None:
    status = {
        "status": {
            "observedGeneration": 1,
            "disruptionsAllowed": allowed,
            "currentHealthy": 1,
            "desiredHealthy": 1 - allowed,
            "expectedPods": 1,
        }
    }
    kubectl.run("patch", "pdb", "web", "--subresource=status", "--type=merge", "-p", json.dumps(status))


def test_drain_respects_a_budget_then_evicts(kubectl) -> None:
    _running(kubectl)
    _budget_status(kubectl, 0)
    refused = kubectl.run("drain", "n1", "--force", "--timeout=3s", check=False)
    assert refused.returncode != 0
    assert "Cannot evict pod as it would violate the pod's disruption budget." in refused.stderr + refused.stdout
    assert kubectl.run("get", "pod", "web", "-o", "name").stdout.strip() == "pod/web"
    _budget_status(kubectl, 1)
    # no kubelet runs on n1 to end the pod: without a grace period of 0 it would stay terminating for 30 s
    drained = kubectl.run("drain", "n1", "--force", "--grace-period=0", "--timeout=30s")
    assert "pod/web evicted" in drained.stdout + drained.stderr
    assert kubectl.run("get", "pods", "-o", "name").stdout.strip() == ""
    node = json.loads(kubectl.run("get", "node", "n1", "-o", "json").stdout)
    assert node["spec"]["unschedulable"] is True
