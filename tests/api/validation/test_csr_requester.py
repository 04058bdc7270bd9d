"""A CertificateSigningRequest records who asked for it: `spec.username`, `uid`, `groups` and `extra` come
from the authenticated user on create (whatever the client wrote), and an update keeps them."""

from __future__ import annotations

import copy

import pytest

from tests.api.validation.test_certificates import CSR

CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
AS_ALICE = {
    "Impersonate-User": "alice",
    "Impersonate-Uid": "alice-uid",
    "Impersonate-Group": "developers",
    "Impersonate-Extra-Scopes": "view",
}


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def test_requester_fields_come_from_the_request_user(api) -> None:
    csr = copy.deepcopy(CSR)
    csr["spec"].update({"username": "mallory", "uid": "forged", "groups": ["system:masters"], "extra": {"a": ["b"]}})
    response = api.request("POST", CSRS, body=csr, headers=AS_ALICE)
    assert response.status == 201, response.json()
    spec = response.json()["spec"]
    assert (spec["username"], spec["uid"], spec["extra"]) == ("alice", "alice-uid", {"scopes": ["view"]})
    assert "developers" in spec["groups"] and "system:masters" not in spec["groups"]


def test_an_update_keeps_the_requester_fields(api) -> None:
    created = api.request("POST", CSRS, body=CSR).json()
    changed = copy.deepcopy(created)
    changed["spec"]["username"] = "mallory"
    response = api.request("PUT", f"{CSRS}/{created['metadata']['name']}", body=changed)
    assert response.status == 200, response.json()
    assert response.json()["spec"]["username"] == created["spec"]["username"] != "mallory"
