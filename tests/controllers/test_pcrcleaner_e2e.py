"""The podcertificaterequest-cleaner controller in the real daemon beside a real API server whose
fake clock it follows (PodCertificateRequests are served with their beta gate and group version on)."""

from __future__ import annotations

import base64
from collections.abc import Callable

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

GATE = "--feature-gates=PodCertificateRequest=true"
SERVER = (GATE, "--runtime-config=certificates.k8s.io/v1beta1=true", "--enable-test-endpoints", "--clock=fake")
REQUESTS = "/apis/certificates.svc/v1beta1/namespaces/default/podcertificaterequests"


def _request() -> dict:
    """A request the API server accepts: an Ed25519 key and the pod uid signed with it."""
    key = ed25519.Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    spec = {
        "signerName": "example.com/signer",
        "podName": "p",
        "podUID": "11111111-1111-1111-1111-111111111111",
        "serviceAccountName": "default",
        "serviceAccountUID": "22222222-2222-2222-2222-222222222222",
        "nodeName": "n1",
        "nodeUID": "33333333-3333-3333-3333-333333333333",
        "pkixPublicKey": base64.b64encode(public).decode(),
        "proofOfPossession": base64.b64encode(key.sign(b"11111111-1111-1111-1111-111111111111")).decode(),
    }
    return {"metadata": {"name": "r1"}, "spec": spec}


def test_a_request_is_deleted_once_it_is_15_minutes_old(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory(*SERVER)
    rest = server.client()
    created = rest.request("POST", REQUESTS, body=_request())
    assert created.status == 201, created.json()
    svc_controller_manager(server, GATE, "--controllers=podcertificaterequest-cleaner-controller")
    assert not wait_for(lambda: rest.request("GET", f"{REQUESTS}/r1").status == 404, timeout=1)
    server.advance_clock(15 * 60 + 1)
    # the cleaner's next look is at most 5 minutes away
    server.advance_clock(5 * 60)
    assert wait_for(lambda: rest.request("GET", f"{REQUESTS}/r1").status == 404, timeout=15)
