"""The bootstrap signer in the real daemon beside a real API server (enabled by name: off by default)."""

from __future__ import annotations

import base64
from collections.abc import Callable

from svc.controllers.bootstrapsigner import detached_signature
from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

INFO = "/api/v1/namespaces/svc-public/configmaps/cluster-info"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_cluster_info_is_signed_with_a_signing_bootstrap_token(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    data = {"token-id": b64("abcdef"), "token-secret": b64("0123456789abcdef"), "usage-bootstrap-signing": b64("true")}
    secret = {"metadata": {"name": "bootstrap-token-abcdef"}, "type": "bootstrap.svc.io/token", "data": data}
    assert rest.request("POST", "/api/v1/namespaces/svc-system/secrets", body=secret).status == 201
    info = {"metadata": {"name": "cluster-info"}, "data": {"kubeconfig": "apiVersion: v1\nkind: Config\n"}}
    assert rest.request("POST", "/api/v1/namespaces/svc-public/configmaps", body=info).status == 201
    svc_controller_manager(svc_server, "--controllers=bootstrapsigner")

    def signature() -> str:
        return rest.request("GET", INFO).json()["data"].get("jws-kubeconfig-abcdef", "")

    assert wait_for(signature, timeout=10)
    assert signature() == detached_signature("apiVersion: v1\nkind: Config\n", "abcdef", "0123456789abcdef")
