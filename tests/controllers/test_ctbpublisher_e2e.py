"""The serving ClusterTrustBundle publisher in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from svc.client.kubeconfig import load_kubeconfig
from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

GATE = "--feature-gates=ClusterTrustBundle=true"
BUNDLES = "/apis/certificates.svc/v1beta1/clustertrustbundles"


def test_the_serving_ca_is_published_and_a_stale_bundle_of_the_signer_removed(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory(GATE, "--runtime-config=certificates.k8s.io/v1beta1=true")
    rest = server.client()
    config = load_kubeconfig(server.kubeconfig)
    ca = (config.ca_data or Path(config.ca_file).read_bytes()).decode()
    stale = {
        "metadata": {"name": "svc.io:svc-apiserver-serving:stale"},
        "spec": {"signerName": "svc.io/svc-apiserver-serving", "trustBundle": ca},
    }
    created = rest.request("POST", BUNDLES, body=stale)
    assert created.status == 201, created.json()
    svc_controller_manager(server, GATE, "--controllers=svc-apiserver-serving-clustertrustbundle-publisher-controller")

    def names() -> list[str]:
        return [bundle["metadata"]["name"] for bundle in rest.request("GET", BUNDLES).json()["items"]]

    def published() -> bool:
        current = names()
        return len(current) == 1 and current[0] != "svc.io:svc-apiserver-serving:stale"

    assert wait_for(published, timeout=15), names()
    published_bundle = rest.request("GET", BUNDLES).json()["items"][0]
    assert published_bundle["metadata"]["name"].startswith("svc.io:svc-apiserver-serving:")
    assert published_bundle["spec"]["signerName"] == "svc.io/svc-apiserver-serving"
    assert published_bundle["spec"]["trustBundle"] == ca
