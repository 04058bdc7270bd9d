"""Every kind of user x every verb x ten resource scopes, against a real server authorizing with RBAC.

The expected answers are written out by hand from upstream's rule semantics (deny by default; a Role
binds in its namespace only; a ClusterRole through a RoleBinding grants in that namespace only;
resourceNames restrict named requests and never allow lists; groups and service accounts bind as
subjects; the impersonated user is the one authorized). A denied request is a 403 whose message names
user, verb, resource, group and scope exactly as upstream's does.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.apiserver.rbac.conftest import SERVICE_ACCOUNT, Users, binding, eventually, rbac_path, role

VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
NAMESPACED = (("", "pods", "v1", "Pod"), ("", "configmaps", "v1", "ConfigMap"), ("", "secrets", "v1", "Secret"))
APPS = (("apps", "deployments", "apps/v1", "Deployment"),)
# Ten scopes: four namespaced resources in "team" and in "other", configmaps in "public", and two
# cluster-scoped resources.
SCOPES = [
    *(
        (group, resource, version, kind, namespace)
        for namespace in ("team", "other")
        for group, resource, version, kind in NAMESPACED + APPS
    ),
    ("", "configmaps", "v1", "ConfigMap", "public"),
    ("", "nodes", "v1", "Node", ""),
    ("", "namespaces", "v1", "Namespace", ""),
]
USERS = {
    "sa": SERVICE_ACCOUNT,
    "alice": "alice",
    "carol": "carol",
    "dave": "dave",
    "anonymous": "system:anonymous",
}
NAME = "app-secret"
NAMED_VERBS = frozenset({"get", "update", "patch", "delete"})


def expected(user: str, verb: str, group: str, resource: str, namespace: str) -> bool:
    """The policy below, read as upstream's RBAC reads it."""
    if user == "sa":
        return (resource, namespace) == ("pods", "team") and verb in ("get", "list", "watch")
    if user == "alice":
        if (resource, namespace) == ("configmaps", "team"):
            return True
        # resourceNames: only requests naming the object; a list names none
        return (resource, namespace) == ("secrets", "team") and verb in ("get", "update")
    if user == "carol":
        return (resource == "nodes" and verb in ("get", "list", "watch")) or (
            resource == "namespaces" and verb in ("get", "list")
        )
    if user == "dave":
        return (group, resource, namespace) == ("apps", "deployments", "team")
    if user == "anonymous":
        return (resource, namespace) == ("configmaps", "public") and verb in ("get", "list")
    raise AssertionError(user)


def install_policy(users: Users) -> None:
    create = users.create
    for namespace in ("team", "other", "public"):
        create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    create(
        rbac_path("roles", "team"),
        role("pod-reader", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}], "team"),
    )
    create(
        rbac_path("rolebindings", "team"),
        binding("builder-reads-pods", "Role", "pod-reader", [{"kind": "ServiceAccount", "name": "builder"}], "team"),
    )
    create(
        rbac_path("clusterroles"),
        role(
            "config-editor",
            [
                {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["*"]},
                {
                    "apiGroups": [""],
                    "resources": ["secrets"],
                    "resourceNames": [NAME],
                    "verbs": ["get", "list", "update"],
                },
            ],
        ),
    )
    create(
        rbac_path("rolebindings", "team"),
        binding("alice-edits-config", "ClusterRole", "config-editor", [{"kind": "User", "name": "alice"}], "team"),
    )
    create(
        rbac_path("clusterroles"),
        role(
            "node-viewer",
            [
                {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]},
                {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "list"]},
            ],
        ),
    )
    create(
        rbac_path("clusterrolebindings"),
        binding("devs-view-nodes", "ClusterRole", "node-viewer", [{"kind": "Group", "name": "devs"}]),
    )
    create(rbac_path("clusterroles"), role("deployer", [{"apiGroups": ["apps"], "resources": ["*"], "verbs": ["*"]}]))
    create(
        rbac_path("rolebindings", "team"),
        binding("dave-deploys", "ClusterRole", "deployer", [{"kind": "User", "name": "dave"}], "team"),
    )
    create(
        rbac_path("roles", "public"),
        role("read-config", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}], "public"),
    )
    create(
        rbac_path("rolebindings", "public"),
        binding(
            "everyone-reads", "Role", "read-config", [{"kind": "Group", "name": "system:unauthenticated"}], "public"
        ),
    )


def _request(verb: str, group: str, resource: str, version: str, kind: str, namespace: str) -> tuple[str, str, Any]:
    base = f"/api/{version}" if not group else f"/apis/{version}"
    collection = f"{base}/namespaces/{namespace}/{resource}" if namespace else f"{base}/{resource}"
    named = f"{collection}/{NAME}"
    obj = {"apiVersion": version, "kind": kind, "metadata": {"name": NAME}}
    return {
        "get": ("GET", named, None),
        "list": ("GET", collection, None),
        "create": ("POST", collection, obj),
        "update": ("PUT", named, obj),
        "patch": ("PATCH", named, {}),
        "delete": ("DELETE", named, None),
        "deletecollection": ("DELETE", collection, None),
    }[verb]


def _message(user: str, verb: str, group: str, resource: str, namespace: str) -> str:
    qualified = f"{resource}.{group}" if group else resource
    if verb in NAMED_VERBS:
        qualified += f' "{NAME}"'
        if resource == "namespaces":  # a namespace is its own namespace, as upstream's request info says
            namespace = NAME
    where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    return f'{qualified} is forbidden: User "{user}" cannot {verb} resource "{resource}" in API group "{group}" {where}'


def _review(users: Users, who: str, verb: str, group: str, resource: str, namespace: str) -> bool:
    """A SubjectAccessReview (for watch, which as a request would stream)."""
    client = users.as_user(who)
    review = {
        "apiVersion": "authorization.svc/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": verb, "group": group, "resource": resource, "namespace": namespace}},
    }
    response = client.request("POST", "/apis/authorization.svc/v1/selfsubjectaccessreviews", body=review)
    if response.status == 403:  # anonymous may not even ask
        return False
    return response.json()["status"]["allowed"]


# One allowed request per user: once each answers, every role and binding has reached the index (the
# four resources are followed by separate watches, so one arriving says nothing of the others).
PROBES = {
    "sa": "/api/v1/namespaces/team/pods",
    "alice": "/api/v1/namespaces/team/configmaps",
    "carol": "/api/v1/nodes",
    "dave": "/apis/apps/v1/namespaces/team/deployments",
    "anonymous": "/api/v1/namespaces/public/configmaps",
}


@pytest.fixture
def policy(users: Users) -> Users:
    install_policy(users)
    for who, path in PROBES.items():
        client = users.as_user(who)
        assert eventually(lambda: client.request("GET", path).status == 200)  # noqa: B023 (called at once)
    return users


@pytest.mark.parametrize("who", sorted(USERS))
def test_matrix(policy: Users, who: str) -> None:
    client = policy.as_user(who)
    wrong: list[str] = []
    for group, resource, version, kind, namespace in SCOPES:
        if resource == "namespaces":
            namespace = ""
        for verb in VERBS:
            want = expected(who, verb, group, resource, namespace)
            cell = f"{verb} {group}/{resource} in {namespace or '<cluster>'}"
            if verb == "watch":
                if who != "anonymous" and _review(policy, who, verb, group, resource, namespace) != want:
                    wrong.append(f"{cell}: review says {not want}")
                continue
            method, path, body = _request(verb, group, resource, version, kind, namespace)
            content_type = "application/merge-patch+json" if method == "PATCH" else "application/json"
            response = client.request(method, path, body=body, content_type=content_type)
            if want and response.status == 403:
                wrong.append(f"{cell}: forbidden, should be allowed: {response.json()['message']}")
            elif not want:
                if response.status != 403:
                    wrong.append(f"{cell}: {response.status}, should be forbidden")
                elif response.json()["message"] != _message(USERS[who], verb, group, resource, namespace):
                    wrong.append(f"{cell}: message {response.json()['message']!r}")
    assert wrong == []
