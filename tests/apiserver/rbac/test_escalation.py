"""Writing a role or binding needs the permissions it grants, or the `escalate`/`bind` verbs."""

from __future__ import annotations

from tests.apiserver.rbac.conftest import RBAC, Users, binding, eventually, rbac_path, role

SECRETS = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}]


def _grant_alice(users: Users, name: str, rules: list[dict]) -> None:
    users.create(rbac_path("clusterroles"), role(name, rules))
    users.create(
        rbac_path("clusterrolebindings"), binding(name, "ClusterRole", name, [{"kind": "User", "name": "alice"}])
    )


def _wait_until_alice_may(users: Users, verb: str, resource: str) -> None:
    review = {
        "apiVersion": "authorization.svc/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": verb, "group": RBAC, "resource": resource, "namespace": "default"}},
    }
    alice = users.as_user("alice")
    path = "/apis/authorization.svc/v1/selfsubjectaccessreviews"
    assert eventually(lambda: alice.request("POST", path, body=review).json()["status"]["allowed"])


def _rbac_writer(users: Users, *extra: dict) -> None:
    rules = [
        {"apiGroups": [RBAC], "resources": ["roles", "rolebindings", "clusterroles"], "verbs": ["create", "update"]}
    ]
    _grant_alice(users, "rbac-writer", rules + list(extra))
    _wait_until_alice_may(users, "create", "roles")


def test_granting_unheld_permissions_is_forbidden_with_upstreams_message(users: Users) -> None:
    _rbac_writer(users)
    response = users.as_user("alice").request("POST", rbac_path("roles", "default"), body=role("r", SECRETS, "default"))
    assert response.status == 403
    assert response.json()["reason"] == "Forbidden"
    assert response.json()["message"] == (
        'roles.rbac.authorization.svc "r" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting '
        'to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}'
    )


def test_held_permissions_may_be_granted(users: Users) -> None:
    _rbac_writer(users, *SECRETS)
    response = users.as_user("alice").request("POST", rbac_path("roles", "default"), body=role("r", SECRETS, "default"))
    assert response.status == 201


def test_escalate_verb_allows_granting_anything(users: Users) -> None:
    _rbac_writer(users, {"apiGroups": [RBAC], "resources": ["roles"], "verbs": ["escalate"]})
    response = users.as_user("alice").request("POST", rbac_path("roles", "default"), body=role("r", SECRETS, "default"))
    assert response.status == 201


def test_binding_needs_the_roles_permissions_or_bind(users: Users) -> None:
    users.create(rbac_path("clusterroles"), role("secret-reader", SECRETS))
    _rbac_writer(users)
    alice = users.as_user("alice")
    wanted = binding("b", "ClusterRole", "secret-reader", [{"kind": "User", "name": "bob"}], "default")
    denied = alice.request("POST", rbac_path("rolebindings", "default"), body=wanted)
    assert denied.status == 403
    assert denied.json()["message"].startswith(
        'rolebindings.rbac.authorization.svc "b" is forbidden: user "alice" (groups=["system:authenticated"]) is '
        "attempting to grant RBAC permissions not currently held:\n"
    )
    users.create(
        rbac_path("rolebindings", "default"),
        binding("may-bind", "Role", "binder", [{"kind": "User", "name": "alice"}], "default"),
    )
    rules = [
        {"apiGroups": [RBAC], "resources": ["clusterroles"], "resourceNames": ["secret-reader"], "verbs": ["bind"]}
    ]
    users.create(rbac_path("roles", "default"), role("binder", rules, "default"))
    assert eventually(lambda: alice.request("POST", rbac_path("rolebindings", "default"), body=wanted).status == 201)


def test_binding_to_a_missing_role_is_forbidden(users: Users) -> None:
    _rbac_writer(users)
    wanted = binding("b", "Role", "ghost", [{"kind": "User", "name": "bob"}], "default")
    response = users.as_user("alice").request("POST", rbac_path("rolebindings", "default"), body=wanted)
    assert response.status == 403
    assert response.json()["message"] == (
        'rolebindings.rbac.authorization.svc "b" is forbidden: role.rbac.authorization.svc "ghost" not found'
    )


def test_aggregation_rule_needs_cluster_admin(users: Users) -> None:
    _rbac_writer(users)
    aggregating = role("agg", [])
    aggregating["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {"x": "y"}}]}
    response = users.as_user("alice").request("POST", rbac_path("clusterroles"), body=aggregating)
    assert response.status == 403
    assert response.json()["message"] == (
        'clusterroles.rbac.authorization.svc "agg" is forbidden: '
        "must have cluster-admin privileges to use an aggregationRule"
    )
