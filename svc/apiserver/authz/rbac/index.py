"""Roles and bindings in memory, indexed by the subjects they bind, kept current from the watch caches.

Each request asks "which rules apply to this user in this namespace". Scanning every binding per
request would cost in proportion to the cluster's policy; the index instead keys bindings by subject
(user name, group name; a service account is its user name), so a request touches only the bindings
naming the user or one of its groups, whatever the number of roles and bindings. Rules are parsed once,
when a role changes, not per request.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from svc.apiserver.authz.rbac.rules import Rule, rules_of
from svc.registry.admission import UserInfo

Obj = dict[str, Any]
SubjectKey = tuple[str, str]
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True, slots=True)
class Subject:
    kind: str
    name: str
    namespace: str

    def key(self, binding_namespace: str) -> SubjectKey | None:
        """The user or group this subject names (None when it can name nobody)."""
        if self.kind == "ServiceAccount":
            namespace = self.namespace or binding_namespace
            return ("User", f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{self.name}") if namespace and self.name else None
        if self.kind in ("User", "Group"):
            return (self.kind, self.name)
        return None


@dataclass(frozen=True, slots=True)
class Binding:
    """A RoleBinding (namespace set) or ClusterRoleBinding (namespace empty)."""

    name: str
    namespace: str
    role_kind: str
    role_name: str
    subjects: tuple[Subject, ...]

    @classmethod
    def of(cls, obj: Obj) -> Binding:
        metadata = obj.get("metadata") or {}
        role_ref = obj.get("roleRef")
        role_ref = role_ref if isinstance(role_ref, dict) else {}
        listed = obj.get("subjects")
        subjects = tuple(
            Subject(str(s.get("kind", "")), str(s.get("name", "")), str(s.get("namespace", "")))
            for s in (listed if isinstance(listed, list) else ())
            if isinstance(s, dict)
        )
        return cls(
            str(metadata.get("name", "")),
            str(metadata.get("namespace", "")),
            str(role_ref.get("kind", "")),
            str(role_ref.get("name", "")),
            subjects,
        )

    def subject_keys(self) -> set[SubjectKey]:
        return {key for subject in self.subjects if (key := subject.key(self.namespace)) is not None}

    def subject_for(self, user: UserInfo) -> Subject | None:
        """The first subject naming `user` (upstream's reason quotes that one)."""
        for subject in self.subjects:
            key = subject.key(self.namespace)
            if key == ("User", user.name) or (key is not None and key[0] == "Group" and key[1] in user.groups):
                return subject
        return None

    def describe(self, user: UserInfo) -> str:
        subject = self.subject_for(user)
        who = ""
        if subject is not None:
            name = subject.name
            if subject.kind == "ServiceAccount":
                name = f"{subject.name}/{subject.namespace or self.namespace}"
            who = f' to {subject.kind} "{name}"'
        if self.namespace:
            return f'RoleBinding "{self.name}/{self.namespace}" of {self.role_kind} "{self.role_name}"{who}'
        return f'ClusterRoleBinding "{self.name}" of {self.role_kind} "{self.role_name}"{who}'


class _BindingIndex:
    """Bindings by (namespace, subject); cluster bindings use the namespace ""."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, str], Binding] = {}
        self.by_subject: dict[tuple[str, SubjectKey], dict[str, Binding]] = {}

    def put(self, binding: Binding) -> None:
        self.remove(binding.namespace, binding.name)
        self.by_key[(binding.namespace, binding.name)] = binding
        for key in binding.subject_keys():
            self.by_subject.setdefault((binding.namespace, key), {})[binding.name] = binding

    def remove(self, namespace: str, name: str) -> None:
        old = self.by_key.pop((namespace, name), None)
        if old is None:
            return
        for key in old.subject_keys():
            named = self.by_subject.get((namespace, key))
            if named is not None:
                named.pop(name, None)
                if not named:
                    del self.by_subject[(namespace, key)]

    def clear(self) -> None:
        self.by_key.clear()
        self.by_subject.clear()

    def for_user(self, user: UserInfo, namespace: str) -> Iterator[Binding]:
        seen: set[str] = set()
        for key in (("User", user.name), *(("Group", group) for group in user.groups)):
            for name, binding in self.by_subject.get((namespace, key), {}).items():
                if name not in seen:
                    seen.add(name)
                    yield binding


class PolicyIndex:
    """Every Role, ClusterRole, RoleBinding and ClusterRoleBinding, as the authorizer reads them."""

    def __init__(self, group: str) -> None:
        self.group = group
        """The served name of the RBAC group, as not-found errors spell it."""
        self.roles: dict[tuple[str, str], tuple[Rule, ...]] = {}
        self.cluster_roles: dict[str, tuple[Rule, ...]] = {}
        self.role_bindings = _BindingIndex()
        self.cluster_role_bindings = _BindingIndex()
        self.generation = 0
        """Counts changes, so what was derived from the index (cached decisions) knows when it is stale."""

    # -- changes -----------------------------------------------------------------------------
    def put(self, resource: str, obj: Obj) -> None:
        self.generation += 1
        metadata = obj.get("metadata") or {}
        namespace, name = str(metadata.get("namespace", "")), str(metadata.get("name", ""))
        if resource == "roles":
            self.roles[(namespace, name)] = rules_of(obj)
        elif resource == "clusterroles":
            self.cluster_roles[name] = rules_of(obj)
        elif resource == "rolebindings":
            self.role_bindings.put(Binding.of(obj))
        elif resource == "clusterrolebindings":
            self.cluster_role_bindings.put(Binding.of(dict(obj, metadata={**metadata, "namespace": ""})))

    def remove(self, resource: str, obj: Obj) -> None:
        self.generation += 1
        metadata = obj.get("metadata") or {}
        namespace, name = str(metadata.get("namespace", "")), str(metadata.get("name", ""))
        if resource == "roles":
            self.roles.pop((namespace, name), None)
        elif resource == "clusterroles":
            self.cluster_roles.pop(name, None)
        elif resource == "rolebindings":
            self.role_bindings.remove(namespace, name)
        elif resource == "clusterrolebindings":
            self.cluster_role_bindings.remove("", name)

    def reset(self, resource: str, objs: list[Obj]) -> None:
        self.generation += 1
        if resource == "roles":
            self.roles.clear()
        elif resource == "clusterroles":
            self.cluster_roles.clear()
        elif resource == "rolebindings":
            self.role_bindings.clear()
        elif resource == "clusterrolebindings":
            self.cluster_role_bindings.clear()
        for obj in objs:
            self.put(resource, obj)

    # -- reads -------------------------------------------------------------------------------
    def role_rules(self, kind: str, name: str, namespace: str) -> tuple[Rule, ...] | str:
        """The rules of a role reference, or upstream's not-found message when it names no role."""
        if kind == "ClusterRole":
            rules = self.cluster_roles.get(name)
            return rules if rules is not None else f'clusterrole.{self.group} "{name}" not found'
        if kind == "Role" and namespace:
            rules = self.roles.get((namespace, name))
            return rules if rules is not None else f'role.{self.group} "{name}" not found'
        return f'unsupported role reference kind: "{kind}"'

    def visit(self, user: UserInfo, namespace: str) -> Iterator[tuple[Binding, tuple[Rule, ...] | str]]:
        """Each binding applying to `user` with its role's rules (or why they could not be read):
        cluster-wide bindings first, then those of `namespace`, as upstream's resolver visits them."""
        for binding in self.cluster_role_bindings.for_user(user, ""):
            if binding.role_kind == "ClusterRole":
                yield binding, self.role_rules("ClusterRole", binding.role_name, "")
        if namespace:
            for binding in self.role_bindings.for_user(user, namespace):
                yield binding, self.role_rules(binding.role_kind, binding.role_name, namespace)

    def rules_for(self, user: UserInfo, namespace: str) -> tuple[list[Rule], list[str]]:
        """Every rule `user` holds in `namespace` ("" for cluster-wide only), and resolution errors."""
        rules: list[Rule] = []
        errors: list[str] = []
        for _, found in self.visit(user, namespace):
            if isinstance(found, str):
                errors.append(found)
            else:
                rules.extend(found)
        return rules, errors
