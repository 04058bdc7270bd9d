"""The bootstrap policy: created at start, spelled per brand, reconciled at the next start."""

from __future__ import annotations

from svc.testing.harness import in_process_server
from tests.apiserver.rbac.conftest import rbac_path

VIEW_PODS = {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]}


def _clusterrole(client, name: str, group: str = "rbac.authorization.svc") -> dict:
    return client.request("GET", f"/apis/{group}/v1/clusterroles/{name}").json()


def test_default_roles_exist_with_brand_spelling(svc_server) -> None:
    view = _clusterrole(svc_server.client(), "view")
    assert view["metadata"]["labels"] == {
        "svc.io/bootstrapping": "rbac-defaults",
        "rbac.authorization.svc/aggregate-to-edit": "true",
    }
    assert view["metadata"]["annotations"] == {"rbac.authorization.svc.io/autoupdate": "true"}
    assert view["aggregationRule"] == {
        "clusterRoleSelectors": [{"matchLabels": {"rbac.authorization.svc/aggregate-to-view": "true"}}]
    }


def test_default_roles_under_the_kubernetes_profile(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    admin = _clusterrole(server.client(), "admin", "rbac.authorization.k8s.io")
    assert admin["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}
    assert admin["metadata"]["labels"] == {"kubernetes.io/bootstrapping": "rbac-defaults"}
    binding = server.client().request("GET", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin")
    assert binding.json()["subjects"] == [
        {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:masters"}
    ]


def test_aggregated_roles_hold_the_rules_they_aggregate(svc_server) -> None:
    client = svc_server.client()
    view, edit, admin = (_clusterrole(client, name)["rules"] for name in ("view", "edit", "admin"))
    assert any(set(VIEW_PODS["verbs"]) <= set(rule["verbs"]) and "pods" in rule["resources"] for rule in view)
    assert all(rule in edit for rule in view)
    assert all(rule in admin for rule in edit)
    assert any("rolebindings" in rule.get("resources", []) for rule in admin)
    assert not any("rolebindings" in rule.get("resources", []) for rule in edit)


def test_lost_rules_come_back_at_the_next_start_unless_autoupdate_is_false(tmp_path) -> None:
    data = tmp_path / "data"
    with in_process_server(data) as server:
        client = server.client()
        for name, autoupdate in (("system:discovery", "true"), ("system:basic-user", "false")):
            role = _clusterrole(client, name)
            role["rules"] = []
            role["metadata"]["annotations"]["rbac.authorization.svc.io/autoupdate"] = autoupdate
            assert client.request("PUT", rbac_path("clusterroles") + f"/{name}", body=role).status == 200
        client.request("DELETE", rbac_path("clusterrolebindings") + "/system:monitoring")
    with in_process_server(data) as server:
        client = server.client()
        assert _clusterrole(client, "system:discovery").get("rules")
        assert _clusterrole(client, "system:basic-user")["rules"] is None  # emptied: read back as null
        assert client.request("GET", rbac_path("clusterrolebindings") + "/system:monitoring").status == 200


def test_reconciling_keeps_added_permissions(tmp_path) -> None:
    data = tmp_path / "data"
    extra = {"verbs": ["get"], "nonResourceURLs": ["/extra"]}
    with in_process_server(data) as server:
        client = server.client()
        role = _clusterrole(client, "system:discovery")
        role["rules"].append(extra)
        assert client.request("PUT", rbac_path("clusterroles") + "/system:discovery", body=role).status == 200
    with in_process_server(data) as server:
        assert extra in _clusterrole(server.client(), "system:discovery")["rules"]


UPSTREAM_CLUSTER_ROLES = {
    "admin",
    "cluster-admin",
    "edit",
    "view",
    "system:aggregate-to-admin",
    "system:aggregate-to-edit",
    "system:aggregate-to-view",
    "system:auth-delegator",
    "system:basic-user",
    "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
    "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
    "system:certificates.k8s.io:kube-apiserver-client-approver",
    "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
    "system:certificates.k8s.io:kubelet-serving-approver",
    "system:certificates.k8s.io:legacy-unknown-approver",
    "system:discovery",
    "system:heapster",
    "system:kube-aggregator",
    "system:kube-controller-manager",
    "system:kube-dns",
    "system:kube-scheduler",
    "system:kubelet-api-admin",
    "system:monitoring",
    "system:node",
    "system:node-bootstrapper",
    "system:node-problem-detector",
    "system:node-proxier",
    "system:persistent-volume-provisioner",
    "system:public-info-viewer",
    "system:service-account-issuer-discovery",
    "system:volume-scheduler",
}


def test_every_upstream_cluster_role_of_the_fixture_exists(svc_server) -> None:
    items = svc_server.client().request("GET", rbac_path("clusterroles")).json()["items"]
    names = {item["metadata"]["name"] for item in items}
    assert {name for name in names if not name.startswith("system:controller:")} == UPSTREAM_CLUSTER_ROLES


def test_component_subjects_take_the_brand_spelling(svc_server) -> None:
    client = svc_server.client()
    scheduler = client.request("GET", rbac_path("clusterrolebindings") + "/system:kube-scheduler").json()
    assert scheduler["subjects"] == [
        {"kind": "User", "apiGroup": "rbac.authorization.svc", "name": "system:svc-scheduler"}
    ]
    dns = client.request("GET", rbac_path("clusterrolebindings") + "/system:kube-dns").json()
    assert dns["subjects"] == [{"kind": "ServiceAccount", "name": "kube-dns", "namespace": "svc-system"}]
    assert "subjects" not in client.request("GET", rbac_path("clusterrolebindings") + "/system:node").json()


def test_health_reports_the_bootstrap_hook(svc_server) -> None:
    verbose = svc_server.client().request("GET", "/readyz", params={"verbose": "1"}).body.decode()
    assert "[+]poststarthook/rbac/bootstrap-roles ok" in verbose.splitlines()


def test_system_namespace_roles_name_the_brands_components(svc_server) -> None:
    client = svc_server.client()
    locking = client.request(
        "GET", rbac_path("roles", "svc-system") + "/system::leader-locking-kube-controller-manager"
    )
    assert {
        "apiGroups": [""],
        "resourceNames": ["svc-controller-manager"],
        "resources": ["configmaps"],
        "verbs": ["get", "update"],
    } in locking.json()["rules"]
    binding = client.request(
        "GET", rbac_path("rolebindings", "svc-public") + "/system:controller:bootstrap-signer"
    ).json()
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.svc",
        "kind": "Role",
        "name": "system:controller:bootstrap-signer",
    }
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "bootstrap-signer", "namespace": "svc-system"}]
