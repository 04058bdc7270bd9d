"""Changes to roles and bindings take effect within a second, and RBAC's reasons are upstream's."""

from __future__ import annotations

from tests.apiserver.rbac.conftest import Users, binding, eventually, rbac_path, role

PODS = "/api/v1/namespaces/default/pods"


def _sar(users: Users, user: str, groups: list[str], verb: str, resource: str, namespace: str) -> dict:
    review = {
        "apiVersion": "authorization.svc/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": user,
            "groups": groups,
            "resourceAttributes": {"verb": verb, "resource": resource, "namespace": namespace},
        },
    }
    return users.admin.request("POST", "/apis/authorization.svc/v1/subjectaccessreviews", body=review).json()["status"]


def test_a_new_binding_grants_and_its_deletion_revokes(users: Users) -> None:
    alice = users.as_user("alice")
    assert alice.request("GET", PODS).status == 403
    users.create(
        rbac_path("clusterroles"), role("pod-lister", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}])
    )
    users.create(
        rbac_path("rolebindings", "default"),
        binding("alice-lists", "ClusterRole", "pod-lister", [{"kind": "User", "name": "alice"}], "default"),
    )
    assert eventually(lambda: alice.request("GET", PODS).status == 200, seconds=1.0)
    users.admin.request("DELETE", rbac_path("rolebindings", "default") + "/alice-lists")
    assert eventually(lambda: alice.request("GET", PODS).status == 403, seconds=1.0)


def test_changing_a_role_changes_what_its_bindings_grant(users: Users) -> None:
    alice = users.as_user("alice")
    users.create(
        rbac_path("roles", "default"),
        role("r", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}], "default"),
    )
    users.create(
        rbac_path("rolebindings", "default"), binding("b", "Role", "r", [{"kind": "User", "name": "alice"}], "default")
    )
    assert eventually(lambda: alice.request("GET", PODS + "/x").status == 404)
    assert alice.request("GET", PODS).status == 403
    updated = role("r", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}], "default")
    assert users.admin.request("PUT", rbac_path("roles", "default") + "/r", body=updated).status == 200
    assert eventually(lambda: alice.request("GET", PODS).status == 200, seconds=1.0)


def test_a_binding_to_a_missing_role_gives_upstreams_reason(users: Users) -> None:
    users.create(
        rbac_path("rolebindings", "default"),
        binding("dangling", "Role", "ghost", [{"kind": "User", "name": "alice"}], "default"),
    )
    expected = (
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": '
        'RBAC: role.rbac.authorization.svc "ghost" not found'
    )
    alice = users.as_user("alice")
    assert eventually(lambda: alice.request("GET", PODS).json()["message"] == expected)


def test_access_review_reason_names_the_binding_and_subject(users: Users) -> None:
    users.create(
        rbac_path("clusterroles"), role("pod-lister", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}])
    )
    users.create(
        rbac_path("clusterrolebindings"),
        binding(
            "builders",
            "ClusterRole",
            "pod-lister",
            [{"kind": "ServiceAccount", "name": "builder", "namespace": "team"}],
        ),
    )
    user = "system:serviceaccount:team:builder"
    assert eventually(lambda: _sar(users, user, [], "list", "pods", "default").get("allowed") is True)
    assert _sar(users, user, [], "list", "pods", "default") == {
        "allowed": True,
        "reason": 'RBAC: allowed by ClusterRoleBinding "builders" of ClusterRole "pod-lister" '
        'to ServiceAccount "builder/team"',
    }
    assert _sar(users, "alice", [], "list", "pods", "default") == {"allowed": False}


def test_bootstrap_policy_lets_anyone_authenticated_discover_and_read_public_info(users: Users) -> None:
    assert users.as_user("alice").request("GET", "/apis").status == 200
    assert users.as_user("anonymous").request("GET", "/version").status == 200
    forbidden = users.as_user("anonymous").request("GET", "/apis")
    assert forbidden.status == 403
    assert forbidden.json()["message"] == 'forbidden: User "system:anonymous" cannot get path "/apis"'


def test_rules_review_lists_rbac_rules_and_resolution_errors(users: Users) -> None:
    users.create(
        rbac_path("roles", "default"),
        role("r", [{"apiGroups": [""], "resources": ["pods"], "resourceNames": ["p"], "verbs": ["get"]}], "default"),
    )
    users.create(
        rbac_path("rolebindings", "default"), binding("b", "Role", "r", [{"kind": "User", "name": "alice"}], "default")
    )
    users.create(
        rbac_path("rolebindings", "default"),
        binding("c", "Role", "ghost", [{"kind": "User", "name": "alice"}], "default"),
    )
    review = {"apiVersion": "authorization.svc/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "default"}}
    alice = users.as_user("alice")

    def status() -> dict:
        return alice.request("POST", "/apis/authorization.svc/v1/selfsubjectrulesreviews", body=review).json()["status"]

    named = {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["p"]}
    assert eventually(lambda: status()["incomplete"] and named in status()["resourceRules"])
    result = status()
    assert {
        "verbs": ["create"],
        "apiGroups": ["authorization.svc"],
        "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    } in result["resourceRules"]
    assert {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"]} in result[
        "nonResourceRules"
    ]
    assert result["evaluationError"] == 'role.rbac.authorization.svc "ghost" not found'
