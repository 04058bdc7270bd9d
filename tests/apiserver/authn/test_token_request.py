"""`serviceaccounts/<name>/token` (TokenRequest): defaults, limits, bound objects, and real clients."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import orjson
import yaml
from kubernetes import client as k8s
from kubernetes import config

from tests.apiserver.authn.conftest import ISSUER, pod, request_token, service_account, token_client, whoami
from tests.conftest import TOOLS
from tests.e2e.kubectl_runner import Kubectl


def _claims(token: str) -> dict:
    payload = token.split(".")[1]
    return orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_defaults_are_an_hour_for_the_api_audiences(svc_server) -> None:
    admin = svc_server.client()
    account = service_account(admin)
    response = request_token(admin)
    assert response.status == 201
    body = response.json()
    assert body["kind"] == "TokenRequest"
    assert body["spec"]["expirationSeconds"] == 3600
    assert body["spec"]["audiences"] == [ISSUER]
    claims = _claims(body["status"]["token"])
    assert claims["iss"] == ISSUER
    assert claims["aud"] == [ISSUER]
    assert claims["sub"] == "system:serviceaccount:default:robot"
    assert claims["exp"] - claims["iat"] == 3600
    assert claims["svc.io"] == {
        "namespace": "default",
        "serviceaccount": {"name": "robot", "uid": account["metadata"]["uid"]},
    }
    expires = time.mktime(time.strptime(body["status"]["expirationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(expires - claims["exp"]) <= 1


def test_a_lifetime_under_ten_minutes_is_invalid(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    response = request_token(admin, expirationSeconds=599)
    assert response.status == 422
    assert response.json()["reason"] == "Invalid"
    assert (
        "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"
        in (response.json()["message"])
    )


def test_the_maximum_lifetime_flag_shortens_requests_with_a_warning(svc_server_factory) -> None:
    server = svc_server_factory("--service-account-max-token-expiration=2h")
    admin = server.client()
    service_account(admin)
    response = request_token(admin, expirationSeconds=86400)
    assert response.status == 201
    assert response.json()["spec"]["expirationSeconds"] == 7200
    assert "requested expiration of 86400 seconds shortened to 7200 seconds" in response.headers.get("Warning", "")


def test_a_token_for_a_missing_service_account_is_404(svc_server) -> None:
    response = request_token(svc_server.client(), "ghost")
    assert response.status == 404
    assert response.json()["message"] == 'serviceaccounts "ghost" not found'


def test_the_injected_lifetime_of_a_pod_bound_token_is_extended_to_a_year(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    pod(admin, "worker", "robot")
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "worker"}
    body = request_token(admin, expirationSeconds=3607, boundObjectRef=ref).json()
    claims = _claims(body["status"]["token"])
    assert claims["exp"] - claims["iat"] == 365 * 24 * 3600
    assert claims["svc.io"]["warnafter"] - claims["iat"] == 3607
    assert claims["svc.io"]["pod"]["name"] == "worker"


def test_binding_to_a_pod_of_another_service_account_is_a_bad_request(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    service_account(admin, "other")
    pod(admin, "worker", "other")
    response = request_token(admin, boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "worker"})
    assert response.status == 400
    assert response.json()["message"] == (
        'cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.'
    )


def test_binding_with_a_stale_uid_is_a_conflict(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    pod(admin, "worker", "robot")
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "worker", "uid": "0000"}
    response = request_token(admin, boundObjectRef=ref)
    assert response.status == 409
    assert response.json()["reason"] == "Conflict"


def test_binding_to_a_missing_pod_is_404_and_to_an_unsupported_kind_400(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    missing = request_token(admin, boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "nope"})
    assert missing.status == 404
    other = request_token(admin, boundObjectRef={"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"})
    assert other.status == 400
    assert other.json()["message"] == "cannot bind token to object of type apps/v1, Kind=Deployment"


def test_a_node_bound_token_names_the_node_and_dies_with_it(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    assert admin.request("POST", "/api/v1/nodes", body=node).status == 201
    response = request_token(admin, boundObjectRef={"apiVersion": "v1", "kind": "Node", "name": "n1"})
    token = response.json()["status"]["token"]
    user = whoami(svc_server, token).json()["status"]["userInfo"]
    assert user["extra"]["authentication.svc.io/node-name"] == ["n1"]
    assert admin.request("DELETE", "/api/v1/nodes/n1").status == 200
    assert whoami(svc_server, token).status == 401


def _token_kubeconfig(admin: Path, path: Path, token: str) -> Path:
    """The admin kubeconfig with the token instead of the client certificate."""
    document = yaml.safe_load(admin.read_text())
    for user in document["users"]:
        user["user"] = {"token": token}
    path.write_text(yaml.safe_dump(document))
    return path


def test_kubectl_create_token(svc_server_factory, tmp_path: Path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)
    kubectl.run("create", "serviceaccount", "robot")
    token = kubectl.run("create", "token", "robot", "--duration=20m").stdout.strip()
    claims = _claims(token)
    assert claims["exp"] - claims["iat"] == 1200
    assert claims["kubernetes.io"]["serviceaccount"]["name"] == "robot"
    as_robot = Kubectl(kubectl.binary, _token_kubeconfig(server.kubeconfig, tmp_path / "robot.kubeconfig", token))
    whoami_out = as_robot.run("auth", "whoami", "-o", "json").stdout
    assert orjson.loads(whoami_out)["status"]["userInfo"]["username"] == "system:serviceaccount:default:robot"


def test_the_python_client_authenticates_with_a_requested_token(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    admin = config.new_client_from_config(config_file=str(server.kubeconfig))
    try:
        core = k8s.CoreV1Api(admin)
        core.create_namespaced_service_account("default", k8s.V1ServiceAccount(metadata=k8s.V1ObjectMeta(name="bot")))
        request = k8s.AuthenticationV1TokenRequest(spec=k8s.V1TokenRequestSpec(audiences=[], expiration_seconds=900))
        token = core.create_namespaced_service_account_token("bot", "default", request).status.token
        configuration = k8s.Configuration()
        configuration.host = admin.configuration.host
        configuration.ssl_ca_cert = admin.configuration.ssl_ca_cert
        configuration.api_key = {"authorization": f"Bearer {token}"}
        with k8s.ApiClient(configuration) as as_bot:
            review = k8s.AuthenticationV1Api(as_bot).create_self_subject_review(k8s.V1SelfSubjectReview())
            assert review.status.user_info.username == "system:serviceaccount:default:bot"
            names = [
                item.metadata.name for item in k8s.CoreV1Api(as_bot).list_namespaced_service_account("default").items
            ]
            assert "bot" in names
    finally:
        admin.close()


def test_a_token_request_body_of_the_wrong_kind_is_a_bad_request(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    body = {"apiVersion": "v1", "kind": "ConfigMap"}
    response = admin.request("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", body=body)
    assert response.status == 400
    assert token_client(svc_server, "x").request("GET", "/version").status == 401


def test_a_request_naming_another_uid_of_the_service_account_is_a_conflict(svc_server) -> None:
    admin = svc_server.client()
    service_account(admin)
    body = {"apiVersion": "authentication.svc/v1", "kind": "TokenRequest", "metadata": {"uid": "stale"}, "spec": {}}
    response = admin.request("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", body=body)
    assert response.status == 409


def test_api_audiences_are_the_default_audiences_and_the_accepted_ones(svc_server_factory) -> None:
    server = svc_server_factory("--api-audiences=api-a,api-b")
    admin = server.client()
    service_account(admin)
    body = request_token(admin).json()
    assert body["spec"]["audiences"] == ["api-a", "api-b"]
    assert whoami(server, body["status"]["token"]).status == 201
    for_issuer = request_token(admin, audiences=[ISSUER]).json()["status"]["token"]
    assert whoami(server, for_issuer).status == 401
