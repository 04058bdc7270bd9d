"""From client-side to server-side apply with kubectl (issue 12 part 6): upstream's last-applied
manager lets `kubectl apply --server-side` take over what a client-side `kubectl apply` configured."""

from __future__ import annotations

import json

import pytest

from tests.e2e.kubectl_runner import Kubectl

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
"""
CHANGED = MANIFEST.replace("replicas: 2", "replicas: 3").replace("nginx:1.27", "nginx:1.28")


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(kubectl_binary, server.kubeconfig)


def _live(kubectl: Kubectl) -> dict:
    return json.loads(kubectl.run("get", "deployment", "web", "-o", "json", "--show-managed-fields").stdout)


def test_server_side_apply_takes_over_a_client_side_applied_object(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=MANIFEST)
    result = kubectl.run("apply", "--server-side", "-f", "-", stdin=CHANGED)
    assert result.stdout.strip() == "deployment.apps/web serverside-applied"
    live = _live(kubectl)
    assert live["spec"]["replicas"] == 3
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
    (applier,) = [e for e in live["metadata"]["managedFields"] if e["manager"] == "kubectl"]
    assert applier["operation"] == "Apply"
    assert "f:replicas" in applier["fieldsV1"]["f:spec"]
    assert json.loads(live["metadata"]["annotations"][LAST_APPLIED])["spec"]["replicas"] == 3


def test_a_later_client_side_apply_diffs_against_the_server_side_configuration(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=MANIFEST)
    kubectl.run(
        "apply", "--server-side", "-f", "-", stdin=CHANGED.replace("{app: web}\nspec", "{app: web, tier: a}\nspec")
    )
    assert _live(kubectl)["metadata"]["labels"] == {"app": "web", "tier": "a"}
    kubectl.run("apply", "-f", "-", stdin=CHANGED)
    assert _live(kubectl)["metadata"]["labels"] == {"app": "web"}


def test_a_field_someone_else_changed_since_still_conflicts(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=MANIFEST)
    kubectl.run("scale", "deployment", "web", "--replicas=5")
    refused = kubectl.run("apply", "--server-side", "-f", "-", stdin=CHANGED, check=False)
    assert refused.returncode != 0
    assert "conflict" in refused.stderr
    assert ".spec.replicas" in refused.stderr
    assert ".spec.template.spec.containers" not in refused.stderr


def test_another_field_manager_gets_no_upgrade(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=MANIFEST)
    refused = kubectl.run("apply", "--server-side", "--field-manager=mine", "-f", "-", stdin=CHANGED, check=False)
    assert refused.returncode != 0
    assert 'conflicts with "kubectl-client-side-apply"' in refused.stderr
