"""Columns of role bindings and cluster role bindings.

Roles and cluster roles have no column set upstream: their tables are the default NAME and CREATED AT.
"""

from __future__ import annotations

from collections.abc import Callable

from svc.api.columns import descriptions
from svc.api.columns.common import age_column, items, name_column, text
from svc.wire.views import Column, Obj


def _role(binding: Obj) -> str:
    return f"{text(binding, 'roleRef', 'kind')}/{text(binding, 'roleRef', 'name')}"


def _subjects(kind: str) -> Callable[[Obj], str]:
    """Names of the subjects of one kind, joined by ", "; service accounts as "namespace/name"."""

    def cell(binding: Obj) -> str:
        subjects = [subject for subject in items(binding, "subjects") if text(subject, "kind") == kind]
        if kind == "ServiceAccount":
            return ", ".join(f"{text(subject, 'namespace')}/{text(subject, 'name')}" for subject in subjects)
        return ", ".join(text(subject, "name") for subject in subjects)

    return cell


def _binding_columns(holder: str, role_description: str) -> tuple[Column, ...]:
    return (
        name_column(),
        Column("Role", "string", _role, description=role_description),
        age_column(),
        Column("Users", "string", _subjects("User"), description=f"Users in the {holder}", priority=1),
        Column("Groups", "string", _subjects("Group"), description=f"Groups in the {holder}", priority=1),
        Column(
            "ServiceAccounts",
            "string",
            _subjects("ServiceAccount"),
            description=f"ServiceAccounts in the {holder}",
            priority=1,
        ),
    )


ROLE_BINDING = _binding_columns("roleBinding", descriptions.ROLE_BINDING_ROLE_REF)
CLUSTER_ROLE_BINDING = _binding_columns("clusterRoleBinding", descriptions.CLUSTER_ROLE_BINDING_ROLE_REF)
