"""MutatingAdmissionPolicy through kubectl 1.35: a label added by an ApplyConfiguration and one
added by a JSONPatch mutation."""

from __future__ import annotations

import json

import pytest

from tests.conftest import TOOLS
from tests.e2e.kubectl_runner import Kubectl


def _policy(name: str, mutation: str) -> str:
    return f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {{name: {name}}}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [configmaps]
  mutations:
{mutation}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: {name}}}
spec:
  policyName: {name}
"""


APPLY = """\
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"team": "platform"}}}
"""
JSON_PATCH = """\
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/owner"),
        value: request.userInfo.username}]
"""


@pytest.fixture
def kubectl(svc_server_factory) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)


def _labels(kubectl: Kubectl, name: str) -> dict:
    return json.loads(kubectl.run("get", "configmap", name, "-o", "json").stdout)["metadata"].get("labels", {})


def test_an_apply_configuration_adds_a_label(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=_policy("team-label", APPLY))
    kubectl.run("create", "configmap", "settings", "--from-literal=a=1")
    assert _labels(kubectl, "settings") == {"team": "platform"}


def test_a_json_patch_adds_a_label(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=_policy("owner-label", JSON_PATCH))
    # The object carries labels: JSON Patch `add` needs the parent map to exist.
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, labels: {app: web}}\n"
    kubectl.run("create", "-f", "-", stdin=manifest)
    assert _labels(kubectl, "settings") == {"app": "web", "example.com/owner": "kubernetes-admin"}


def test_a_mutation_that_is_not_an_object_is_refused(kubectl: Kubectl) -> None:
    broken = APPLY.replace('Object{metadata: Object.metadata{labels: {"team": "platform"}}}', '{"metadata": 1}')
    refused = kubectl.run("apply", "-f", "-", stdin=_policy("broken", broken), check=False)
    assert "spec.mutations[0].applyConfiguration.expression: Invalid value" in refused.stderr
    assert "must evaluate to Object" in refused.stderr
