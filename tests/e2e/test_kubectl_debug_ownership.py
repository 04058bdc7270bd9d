"""`kubectl debug` adds an ephemeral container through `pods/ephemeralcontainers`; upstream's include-only
reset-field filter makes its manager own the ephemeral containers and nothing else (issue 12)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.kubectl_runner import Kubectl

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - {name: app, image: "nginx:1.27"}
"""


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("apply", "-f", "-", stdin=POD)
    return kubectl


def test_kubectl_debug_owns_only_the_ephemeral_container_it_added(kubectl: Kubectl) -> None:
    kubectl.run("debug", "web", "--image=busybox", "--container=debugger")
    pod = json.loads(kubectl.run("get", "pod", "web", "-o", "json", "--show-managed-fields").stdout)
    assert [c["name"] for c in pod["spec"]["ephemeralContainers"]] == ["debugger"]
    (entry,) = [e for e in pod["metadata"]["managedFields"] if e.get("subresource") == "ephemeralcontainers"]
    assert (entry["manager"], entry["operation"]) == ("kubectl", "Update")
    assert list(entry["fieldsV1"]) == ["f:spec"]
    assert list(entry["fieldsV1"]["f:spec"]) == ["f:ephemeralContainers"]
    assert 'k:{"name":"debugger"}' in entry["fieldsV1"]["f:spec"]["f:ephemeralContainers"]
