"""kubectl reading `/openapi/v2`: client-go asks for the gnostic Protobuf document and decodes it."""

from __future__ import annotations

from tests.e2e.kubectl_runner import Kubectl


def test_explain_from_the_v2_document(svc_server_factory, kubectl_binary) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)

    result = kubectl.run("explain", "deployments.spec.replicas", "--output=plaintext-openapiv2", "-v=6")

    assert "FIELD:    replicas <integer>" in result.stdout
    assert "Number of desired pods." in result.stdout
    assert "/openapi/v2" in result.stderr
