"""kubectl's RBAC commands against a server authorizing with RBAC (kubernetes profile).

The admin kubeconfig is in system:masters; `--as` impersonates the users whose rights are checked.
"""

from __future__ import annotations

import time

import pytest

from tests.e2e.kubectl_runner import Kubectl

RECONCILE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: config-reader
  namespace: default
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: config-readers
  namespace: default
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: config-reader
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: erin
"""


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes", "--authorization-mode=RBAC")
    return Kubectl(kubectl_binary, server.kubeconfig)


def _can_i(kubectl: Kubectl, *args: str) -> str:
    return kubectl.run("auth", "can-i", *args, check=False).stdout.strip()


def _eventually_can(kubectl: Kubectl, *args: str) -> bool:
    deadline = time.monotonic() + 2.0
    for _ in range(40):
        if _can_i(kubectl, *args) == "yes":
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return False


def test_can_i_follows_create_role_and_rolebinding(kubectl: Kubectl) -> None:
    denied = kubectl.run("auth", "can-i", "list", "pods", "--as=alice", check=False)
    assert (denied.returncode, denied.stdout.strip()) == (1, "no")
    created = kubectl.run("create", "role", "pod-reader", "--verb=get,list", "--resource=pods")
    assert created.stdout.strip() == "role.rbac.authorization.k8s.io/pod-reader created"
    bound = kubectl.run("create", "rolebinding", "alice-reads", "--role=pod-reader", "--user=alice")
    assert bound.stdout.strip() == "rolebinding.rbac.authorization.k8s.io/alice-reads created"
    assert _eventually_can(kubectl, "list", "pods", "--as=alice")
    assert _can_i(kubectl, "delete", "pods", "--as=alice") == "no"
    assert _can_i(kubectl, "list", "pods", "--as=alice", "-n", "kube-system") == "no"
    assert _can_i(kubectl, "get", "pods", "--as=alice", "--subresource=log") == "no"


def test_can_i_list_shows_the_users_rules(kubectl: Kubectl) -> None:
    kubectl.run("create", "role", "pod-reader", "--verb=get,list", "--resource=pods", "--resource-name=web")
    kubectl.run("create", "rolebinding", "bob-reads", "--role=pod-reader", "--user=bob")
    assert _eventually_can(kubectl, "get", "pods/web", "--as=bob")
    listing = kubectl.run("auth", "can-i", "--list", "--as=bob").stdout.splitlines()
    assert listing[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    rows = [line.split() for line in listing[1:]]
    assert ["pods", "[]", "[web]", "[get", "list]"] in rows
    assert ["selfsubjectaccessreviews.authorization.k8s.io", "[]", "[]", "[create]"] in rows
    assert ["[/version]", "[]", "[get]"] in rows  # no resource: the first column is blank


def test_auth_reconcile_creates_then_leaves_alone(kubectl: Kubectl) -> None:
    first = kubectl.run("auth", "reconcile", "-f", "-", stdin=RECONCILE)
    assert "role.rbac.authorization.k8s.io/config-reader reconciled" in first.stdout
    assert "rolebinding.rbac.authorization.k8s.io/config-readers reconciled" in first.stdout
    assert _eventually_can(kubectl, "list", "configmaps", "--as=erin")
    again = kubectl.run("auth", "reconcile", "-f", "-", stdin=RECONCILE)
    assert again.returncode == 0


def test_escalation_attempt_fails_with_upstreams_message(kubectl: Kubectl) -> None:
    kubectl.run("create", "role", "role-maker", "--verb=create", "--resource=roles.rbac.authorization.k8s.io")
    kubectl.run("create", "rolebinding", "carol-makes-roles", "--role=role-maker", "--user=carol")
    assert _eventually_can(kubectl, "create", "roles.rbac.authorization.k8s.io", "--as=carol")
    result = kubectl.run(
        "create", "role", "secret-reader", "--verb=get", "--resource=secrets", "--as=carol", check=False
    )
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'Error from server (Forbidden): roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "carol" '
        '(groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}'
    )
