"""The per-controller ClusterRoles `system:controller:*` of upstream's bootstrap policy, bound to the
controllers' service accounts in the system namespace, created at start and reconciled."""

from __future__ import annotations

import dataclasses

from svc.client.rest import RestClient
from svc.testing.harness import in_process_server
from tests.apiserver.rbac.conftest import rbac_path

UPSTREAM_CONTROLLERS = {
    "attachdetach-controller",
    "certificate-controller",
    "clusterrole-aggregation-controller",
    "cronjob-controller",
    "daemon-set-controller",
    "deployment-controller",
    "device-taint-eviction-controller",
    "disruption-controller",
    "endpoint-controller",
    "endpointslice-controller",
    "endpointslicemirroring-controller",
    "ephemeral-volume-controller",
    "expand-controller",
    "generic-garbage-collector",
    "horizontal-pod-autoscaler",
    "job-controller",
    "legacy-service-account-token-cleaner",
    "namespace-controller",
    "node-controller",
    "persistent-volume-binder",
    "pod-garbage-collector",
    "pv-protection-controller",
    "pvc-protection-controller",
    "replicaset-controller",
    "replication-controller",
    "resource-claim-controller",
    "resourcequota-controller",
    "root-ca-cert-publisher",
    "route-controller",
    "selinux-warning-controller",
    "service-account-controller",
    "service-cidrs-controller",
    "service-controller",
    "statefulset-controller",
    "ttl-after-finished-controller",
    "ttl-controller",
    "validatingadmissionpolicy-status-controller",
    "volumeattributesclass-protection-controller",
}


def _names(client, resource: str) -> set[str]:
    items = client.request("GET", rbac_path(resource)).json()["items"]
    prefix = "system:controller:"
    return {
        item["metadata"]["name"].removeprefix(prefix) for item in items if item["metadata"]["name"].startswith(prefix)
    }


def _pairs(rules: list[dict]) -> set[tuple[str, str, str]]:
    """Rules as (group, resource, verb) triples: reconciling adds lost rules back one triple each."""
    return {(g, r, v) for rule in rules for g in rule["apiGroups"] for r in rule["resources"] for v in rule["verbs"]}


def test_every_controller_role_and_binding_of_the_fixture_exists(svc_server) -> None:
    client = svc_server.client()
    assert _names(client, "clusterroles") == UPSTREAM_CONTROLLERS
    assert _names(client, "clusterrolebindings") == UPSTREAM_CONTROLLERS


def test_a_controller_binding_names_its_service_account_in_the_system_namespace(svc_server) -> None:
    binding = svc_server.client().request("GET", rbac_path("clusterrolebindings") + "/system:controller:job-controller")
    body = binding.json()
    assert body["subjects"] == [{"kind": "ServiceAccount", "name": "job-controller", "namespace": "svc-system"}]
    assert body["roleRef"] == {
        "apiGroup": "rbac.authorization.svc",
        "kind": "ClusterRole",
        "name": "system:controller:job-controller",
    }
    assert body["metadata"]["annotations"] == {"rbac.authorization.svc.io/autoupdate": "true"}


def test_controller_roles_take_the_profiles_spelling(svc_server) -> None:
    role = svc_server.client().request("GET", rbac_path("clusterroles") + "/system:controller:certificate-controller")
    assert {
        "apiGroups": ["certificates.svc"],
        "resourceNames": ["svc.io/svc-apiserver-client-kubelet"],
        "resources": ["signers"],
        "verbs": ["approve"],
    } in role.json()["rules"]


def test_a_controller_service_account_holds_its_roles_rights(svc_server_factory, tmp_path) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('jc-token,system:serviceaccount:svc-system:job-controller,u1,"system:serviceaccounts"\n')
    server = svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=RBAC")
    controller = RestClient(dataclasses.replace(server.anonymous_client().config, token="jc-token"))
    try:
        assert controller.request("GET", "/api/v1/namespaces/default/pods").status == 200
        assert controller.request("GET", "/api/v1/namespaces/default/secrets").status == 403
    finally:
        controller.close()


def test_a_controller_roles_lost_rules_come_back_at_the_next_start(tmp_path) -> None:
    data = tmp_path / "data"
    name = "system:controller:ttl-controller"
    with in_process_server(data) as server:
        client = server.client()
        role = client.request("GET", rbac_path("clusterroles") + f"/{name}").json()
        expected = role["rules"]
        role["rules"] = []
        assert client.request("PUT", rbac_path("clusterroles") + f"/{name}", body=role).status == 200
        client.request("DELETE", rbac_path("clusterrolebindings") + f"/{name}")
    with in_process_server(data) as server:
        client = server.client()
        restored = client.request("GET", rbac_path("clusterroles") + f"/{name}").json()["rules"]
        assert _pairs(restored) == _pairs(expected)
        assert client.request("GET", rbac_path("clusterrolebindings") + f"/{name}").status == 200
