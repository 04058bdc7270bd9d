from __future__ import annotations

import pytest

from svc.api.columns import columns_for, descriptions, rbac
from tests.api.columns.support import ago, cells, headers

SUBJECTS = [
    {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "jane"},
    {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:authenticated"},
    {"kind": "ServiceAccount", "name": "builder", "namespace": "ci"},
    {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "joe"},
    {"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"},
]


def test_role_binding_columns_and_cells() -> None:
    assert headers(rbac.ROLE_BINDING) == [
        ("Name", "string", "name", 0),
        ("Role", "string", "", 0),
        ("Age", "string", "", 0),
        ("Users", "string", "", 1),
        ("Groups", "string", "", 1),
        ("ServiceAccounts", "string", "", 1),
    ]
    binding = {
        "metadata": {"name": "readers", "namespace": "ci", "creationTimestamp": ago(days=9)},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": SUBJECTS,
    }
    assert cells(rbac.ROLE_BINDING, binding) == [
        "readers",
        "ClusterRole/view",
        "9d",
        "jane, joe",
        "system:authenticated",
        "ci/builder, kube-system/default",
    ]


def test_binding_descriptions_name_their_kind() -> None:
    assert [column.description for column in rbac.CLUSTER_ROLE_BINDING[3:]] == [
        "Users in the clusterRoleBinding",
        "Groups in the clusterRoleBinding",
        "ServiceAccounts in the clusterRoleBinding",
    ]
    assert rbac.ROLE_BINDING[3].description == "Users in the roleBinding"
    assert rbac.CLUSTER_ROLE_BINDING[1].description == descriptions.CLUSTER_ROLE_BINDING_ROLE_REF


def test_a_binding_without_subjects() -> None:
    binding = {
        "metadata": {"name": "cluster-admin", "creationTimestamp": ago(days=400)},
        "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"},
    }
    assert cells(rbac.CLUSTER_ROLE_BINDING, binding) == [
        "cluster-admin",
        "ClusterRole/cluster-admin",
        "400d",
        "",
        "",
        "",
    ]


def test_bindings_are_registered() -> None:
    assert columns_for("rbac.authorization.k8s.io", "RoleBinding") is rbac.ROLE_BINDING
    assert columns_for("rbac.authorization.k8s.io", "ClusterRoleBinding") is rbac.CLUSTER_ROLE_BINDING


@pytest.mark.parametrize("kind", ["Role", "ClusterRole"])
def test_roles_use_the_default_table(kind: str) -> None:
    assert columns_for("rbac.authorization.k8s.io", kind) is None
