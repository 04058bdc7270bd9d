"""The default roles and bindings, created at start and kept from losing permissions.

The policy is data (`bootstrap.json`, upstream spelling, from upstream's bootstrap policy); it is spelled
per brand profile here. Reconciliation follows upstream's `auth reconcile` rules for bootstrap objects:
a missing object is created; an existing one gets back the rules, selectors, subjects, labels and
annotations it lost, but nothing it gained is taken away; an object annotated
`rbac.authorization.<brand>/autoupdate: "false"` is left alone.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from svc.api.brand import Profile
from svc.apiserver.authz.rbac.aggregation import aggregate
from svc.apiserver.authz.rbac.rules import Rule, rules_of, uncovered
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]
log = logging.getLogger(__name__)

RBAC_GROUP = "rbac.authorization.k8s.io"
_AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
_BOOTSTRAPPING = "kubernetes.io/bootstrapping"


@cache
def _data() -> dict[str, list[Obj]]:
    return json.loads((Path(__file__).parent / "bootstrap.json").read_text())


def autoupdate_annotation(profile: Profile) -> str:
    return profile.label(_AUTOUPDATE)


def _label_key(key: str, profile: Profile) -> str:
    """`rbac.authorization.k8s.io/aggregate-to-admin` takes the served group's spelling."""
    prefix, _, name = key.rpartition("/")
    return f"{profile.group(prefix)}/{name}" if prefix.endswith(".k8s.io") else profile.label(key)


def _namespace(namespace: str, profile: Profile) -> str:
    return {"kube-system": profile.system_namespace, "kube-public": profile.public_namespace}.get(namespace, namespace)


def _metadata(entry: Obj, profile: Profile) -> Obj:
    labels = {profile.label(_BOOTSTRAPPING): "rbac-defaults"}
    labels.update({_label_key(key, profile): value for key, value in (entry.get("labels") or {}).items()})
    metadata = {"name": entry["name"], "labels": labels, "annotations": {autoupdate_annotation(profile): "true"}}
    if "namespace" in entry:
        metadata["namespace"] = _namespace(entry["namespace"], profile)
    return metadata


def _component(name: str, profile: Profile) -> str:
    """`system:kube-scheduler`, `kube-controller-manager`: a component's name in the profile's spelling
    (the prefix of its API server's name, as the controller manager names its lease)."""
    prefix = profile.apiserver_name.removesuffix("apiserver")
    return name.replace("kube-", prefix, 1) if "kube-" in name else name


def _rule(rule: Obj, profile: Profile) -> Obj:
    """Groups, signer names (`kubernetes.io/...`) and component names in the profile's spelling."""
    rule = dict(rule)
    if "apiGroups" in rule:
        rule["apiGroups"] = [profile.group(group) for group in rule["apiGroups"]]
    if "resourceNames" in rule:
        rule["resourceNames"] = [_component(profile.label(name), profile) for name in rule["resourceNames"]]
    return rule


def _subject(subject: Obj, group: str, profile: Profile) -> Obj:
    if subject["kind"] == "ServiceAccount":
        return {**subject, "namespace": _namespace(subject["namespace"], profile)}
    return {**subject, "name": _component(subject["name"], profile), "apiGroup": group}


def cluster_roles(profile: Profile) -> list[Obj]:
    """The bootstrap ClusterRoles, aggregated ones with their aggregated rules already filled in."""
    group = profile.group(RBAC_GROUP)
    roles = []
    for entry in _data()["clusterRoles"]:
        role: Obj = {"apiVersion": f"{group}/v1", "kind": "ClusterRole", "metadata": _metadata(entry, profile)}
        if "aggregationRule" in entry:
            selectors = copy.deepcopy(entry["aggregationRule"]["clusterRoleSelectors"])
            for selector in selectors:
                labels = selector.get("matchLabels") or {}
                selector["matchLabels"] = {_label_key(key, profile): value for key, value in labels.items()}
            role["aggregationRule"] = {"clusterRoleSelectors": selectors}
        role["rules"] = [_rule(rule, profile) for rule in entry.get("rules") or ()]
        roles.append(role)
    aggregate(roles)
    return roles


def cluster_role_bindings(profile: Profile) -> list[Obj]:
    return _bindings("clusterRoleBindings", "ClusterRoleBinding", "ClusterRole", profile)


def roles(profile: Profile) -> list[Obj]:
    """The bootstrap Roles of the system and public namespaces."""
    group = profile.group(RBAC_GROUP)
    return [
        {
            "apiVersion": f"{group}/v1",
            "kind": "Role",
            "metadata": _metadata(entry, profile),
            "rules": [_rule(rule, profile) for rule in entry["rules"]],
        }
        for entry in _data()["roles"]
    ]


def role_bindings(profile: Profile) -> list[Obj]:
    return _bindings("roleBindings", "RoleBinding", "Role", profile)


def _bindings(section: str, kind: str, role_kind: str, profile: Profile) -> list[Obj]:
    group = profile.group(RBAC_GROUP)
    return [
        {
            "apiVersion": f"{group}/v1",
            "kind": kind,
            "metadata": _metadata(entry, profile),
            "roleRef": {"apiGroup": group, "kind": role_kind, "name": entry["role"]},
            "subjects": [_subject(subject, group, profile) for subject in entry["subjects"]],
        }
        for entry in _data()[section]
    ]


def _merge_metadata(current: Obj, expected: Obj) -> None:
    metadata = current.setdefault("metadata", {})
    for field in ("labels", "annotations"):
        wanted = expected["metadata"].get(field) or {}
        if wanted:
            metadata[field] = {**wanted, **(metadata.get(field) or {})}


def reconcile_role(current: Obj, expected: Obj) -> Obj:
    """`current` with what it lacks of `expected`: missing rules (as upstream adds them, one verb and
    resource each), aggregation selectors, labels and annotations."""
    updated = copy.deepcopy(current)
    _merge_metadata(updated, expected)
    missing = uncovered(rules_of(current), rules_of(expected))
    if missing:
        updated["rules"] = [*(current.get("rules") or []), *(Rule.to_dict(rule) for rule in missing)]
    if "aggregationRule" in expected:
        selectors = list((current.get("aggregationRule") or {}).get("clusterRoleSelectors") or [])
        selectors += [s for s in expected["aggregationRule"]["clusterRoleSelectors"] if s not in selectors]
        updated["aggregationRule"] = {"clusterRoleSelectors": selectors}
    return updated


def reconcile_binding(current: Obj, expected: Obj) -> Obj:
    """`current` with the subjects, labels and annotations of `expected` it lacks."""
    updated = copy.deepcopy(current)
    _merge_metadata(updated, expected)
    subjects = list(current.get("subjects") or [])
    subjects += [subject for subject in expected["subjects"] if subject not in subjects]
    updated["subjects"] = subjects
    return updated


async def ensure(store: GenericStore, expected: Obj, merge: Any, profile: Profile, user: UserInfo) -> None:
    """Create `expected`, or reconcile the stored object with it unless its autoupdate is "false"."""
    name, namespace = expected["metadata"]["name"], expected["metadata"].get("namespace", "")
    annotation = autoupdate_annotation(profile)

    async def update(current: Obj | None) -> Obj:
        if current is None:
            return copy.deepcopy(expected)
        if ((current.get("metadata") or {}).get("annotations") or {}).get(annotation) == "false":
            return current
        return merge(current, expected)

    try:
        await store.update(namespace, name, update, admission=NoAdmission(), user=user, options=WriteOptions())
    except status.StatusError as error:
        log.warning("could not reconcile bootstrap %s %s: %s", expected["kind"], name, error.message)


async def reconcile(stores: Mapping[str, GenericStore], profile: Profile, user: UserInfo) -> None:
    """Every bootstrap object, roles before the bindings that name them; `stores` by resource name. The
    objects of one resource are written concurrently: on etcd each write waits for a commit, and a
    hundred of them one after another held start-up back most of a second."""
    for resource, objects, merge in (
        ("clusterroles", cluster_roles(profile), reconcile_role),
        ("clusterrolebindings", cluster_role_bindings(profile), reconcile_binding),
        ("roles", roles(profile), reconcile_role),
        ("rolebindings", role_bindings(profile), reconcile_binding),
    ):
        await asyncio.gather(*(ensure(stores[resource], obj, merge, profile, user) for obj in objects))
