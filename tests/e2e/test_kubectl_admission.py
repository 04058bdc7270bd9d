"""Built-in admission through kubectl (1.32 and 1.35): PodSecurity's rejection and warning texts as
kubectl prints them."""

from __future__ import annotations

import pytest

from tests.e2e.kubectl_runner import Kubectl

POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - {name: nginx, image: nginx}
"""


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes", "--allow-privileged=true")
    return Kubectl(kubectl_binary, server.kubeconfig)


def test_pod_security_enforce_and_warn(kubectl: Kubectl) -> None:
    kubectl.run("create", "namespace", "locked")
    kubectl.run("label", "namespace", "locked", "pod-security.kubernetes.io/enforce=baseline")
    kubectl.run("label", "namespace", "locked", "pod-security.kubernetes.io/warn=restricted")
    created = kubectl.run("apply", "-n", "locked", "-f", "-", stdin=POD)
    assert created.stdout.strip() == "pod/web created"
    assert created.stderr.startswith('Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation')
    privileged = POD.replace("name: web", "name: root").replace(
        "image: nginx}", "image: nginx, securityContext: {privileged: true}}"
    )
    refused = kubectl.run("apply", "-n", "locked", "-f", "-", stdin=privileged, check=False)
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith(
        'pods "root" is forbidden: violates PodSecurity "baseline:latest": privileged '
        '(container "nginx" must not set securityContext.privileged=true)'
    )
