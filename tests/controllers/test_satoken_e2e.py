"""The serviceaccount-token controller in the real daemon: the token it writes authenticates."""

from __future__ import annotations

import base64
from collections.abc import Callable

from svc.client.kubeconfig import ClientConfig, load_kubeconfig
from svc.client.rest import RestClient
from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

ACCOUNTS = "/api/v1/namespaces/default/serviceaccounts"
SECRETS = "/api/v1/namespaces/default/secrets"


def test_a_token_secret_is_filled_with_a_token_the_api_server_accepts_and_goes_with_its_account(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    assert rest.request("POST", ACCOUNTS, body={"metadata": {"name": "builder"}}).status == 201
    annotations = {"svc.io/service-account.name": "builder"}
    secret = {"metadata": {"name": "builder-token", "annotations": annotations}, "type": "svc.io/service-account-token"}
    assert rest.request("POST", SECRETS, body=secret).status == 201
    key = svc_server.data_dir / "pki" / "service-account.key"
    svc_controller_manager(
        svc_server, "--controllers=serviceaccount-token", f"--service-account-private-key-file={key}"
    )

    def data() -> dict:
        return rest.request("GET", f"{SECRETS}/builder-token").json().get("data") or {}

    assert wait_for(lambda: "token" in data(), timeout=15), data()
    assert base64.b64decode(data()["namespace"]) == b"default"
    assert data()["ca.crt"]
    admin = load_kubeconfig(svc_server.kubeconfig)
    token = base64.b64decode(data()["token"]).decode()
    as_builder = RestClient(
        ClientConfig(server=admin.server, ca_file=admin.ca_file, ca_data=admin.ca_data, token=token)
    )
    try:
        review = {"apiVersion": "authentication.svc/v1", "kind": "SelfSubjectReview"}
        answer = as_builder.request("POST", "/apis/authentication.svc/v1/selfsubjectreviews", body=review)
        assert answer.status == 201, answer.json()
        assert answer.json()["status"]["userInfo"]["username"] == "system:serviceaccount:default:builder"
    finally:
        as_builder.close()

    assert rest.request("DELETE", f"{ACCOUNTS}/builder").status == 200
    assert wait_for(lambda: rest.request("GET", f"{SECRETS}/builder-token").status == 404, timeout=15)
