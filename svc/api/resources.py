"""The served resources: the generated upstream table, filtered by enabled versions, under a brand.

`resource_table.json` is produced by `tools/gen_resource_table.py` from the upstream OpenAPI
document. A `ResourceSet` is what one server serves: the enabled group versions (GA by default, as
upstream; `--runtime-config` changes that), with group names spelled by the brand profile.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources as package_files

import orjson

from svc.api.brand import Profile
from svc.machinery.status import GroupResource

# Upstream's group order in discovery (the aggregator's group priorities, highest first).
GROUP_ORDER = (
    "",
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "resource.k8s.io",
    "storagemigration.k8s.io",
)

# Upstream's etcd key of a resource is `<prefix>/<resource>/...`, except where its storage factory
# names another prefix (kube-apiserver's SpecialDefaultResourcePrefixes; events.k8s.io Events are
# stored as core Events) ...
_SPECIAL_PREFIXES = {
    ("", "replicationcontrollers"): "controllers",
    ("", "endpoints"): "services/endpoints",
    ("", "nodes"): "minions",
    ("", "services"): "services/specs",
    ("networking.k8s.io", "ingresses"): "ingress",
    ("extensions", "ingresses"): "ingress",
}
# ... and the API servers kube-apiserver chains in (apiextensions and the aggregator) key by
# `<group>/<resource>`, as custom resources are.
_GROUP_QUALIFIED = frozenset({"apiextensions.k8s.io", "apiregistration.k8s.io"})

_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(version: str) -> tuple[int, int, int]:
    """Sort key putting the preferred version first: GA, then beta, then alpha; newer first."""
    match = _VERSION.match(version)
    if match is None:
        return (3, 0, 0)
    major, stage, minor = match.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -int(major), -int(minor or 0))


def version_stage(version: str) -> str:
    match = _VERSION.match(version)
    return (match.group(2) or "ga") if match else "unknown"


@dataclass(frozen=True)
class Subresource:
    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...]
    definition: str = ""


@dataclass(frozen=True)
class Resource:
    group: str
    upstream_group: str
    version: str
    name: str
    kind: str
    singular: str
    namespaced: bool
    verbs: frozenset[str]
    short_names: tuple[str, ...]
    categories: tuple[str, ...]
    definition: str
    delete_returns_object: bool = False
    subresources: Mapping[str, Subresource] = field(default_factory=dict)
    custom: bool = False

    # Derived names are cached on the instance (a frozen dataclass keeps its `__dict__`): every
    # request asks for them several times.
    @functools.cached_property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> GroupResource:
        return GroupResource(self.group, self.name)

    @property
    def group_kind(self) -> str:
        return f"{self.kind}.{self.group}" if self.group else self.kind

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @functools.cached_property
    def storage_prefix(self) -> str:
        """Key prefix (below `--store-prefix`) shared by every version of this group and resource
        (spec 2.2 rule 4) and by the resources upstream stores together: upstream's own, so tools
        reading an upstream cluster's etcd read ours."""
        if self.custom or self.upstream_group in _GROUP_QUALIFIED:
            return f"/{self.upstream_group}/{self.name}/"
        return "/" + _SPECIAL_PREFIXES.get((self.upstream_group, self.name), self.name) + "/"

    @property
    def stored(self) -> bool:
        """Whether instances persist (virtual types such as reviews only answer a create)."""
        return "get" in self.verbs or "list" in self.verbs


@functools.cache
def _table() -> list[dict]:
    return orjson.loads((package_files.files("svc.api") / "resource_table.json").read_bytes())


@functools.cache
def _group_of_resource() -> dict[str, str]:
    """Each built-in resource name's group (a core resource wins a name two groups store together)."""
    found: dict[str, str] = {}
    for row in sorted(_table(), key=lambda row: row["group"] != ""):
        found.setdefault(row["resource"], row["group"])
    return found


_SPECIAL_KEYS = {prefix: group_resource for group_resource, prefix in _SPECIAL_PREFIXES.items()}
_SPECIAL_KEYS["ingress"] = ("networking.k8s.io", "ingresses")


def group_resource_of_key(path: str) -> tuple[str, str] | None:
    """The (upstream group, resource) whose `storage_prefix` starts `path` (a key below the store
    prefix, `/secrets/ns/name`): the inverse of the key layout, for what keys values by resource."""
    parts = path.split("/", 3)
    if len(parts) < 3 or parts[0]:
        return None
    first, second = parts[1], parts[2]
    if "." in first:
        return first, second
    if (special := _SPECIAL_KEYS.get(f"{first}/{second}")) is not None:
        return special
    if (special := _SPECIAL_KEYS.get(first)) is not None:
        return special
    group = _group_of_resource().get(first)
    return None if group is None else (group, first)


def earlier_layout_renames(store_prefix: str) -> dict[str, str]:
    """Each built-in resource's key prefix in the layout of earlier releases (`/<group, or core>/<resource>/`,
    events.k8s.io Events with core's) -> its prefix now, where the two differ: how a data directory
    written by those releases is moved to upstream's layout. Group-qualified prefixes did not change."""
    renames: dict[str, str] = {}
    for row in _table():
        group, name = row["group"], row["resource"]
        if group in _GROUP_QUALIFIED or not {"get", "list"} & set(row["verbs"]):
            continue
        earlier = "core" if not group or (group, name) == ("events.k8s.io", "events") else group
        now = _SPECIAL_PREFIXES.get((group, name), name)
        renames[f"{store_prefix}/{earlier}/{name}/"] = f"{store_prefix}/{now}/"
    return renames


def parse_runtime_config(entries: Iterable[str]) -> dict[str, bool]:
    """`--runtime-config` pairs (`apps/v1=false`, `api/beta=true`, `v1=true`) as a dict."""
    parsed: dict[str, bool] = {}
    for entry in entries:
        key, sep, value = entry.partition("=")
        value = value.strip().lower() if sep else "true"
        if value not in ("true", "false"):
            raise ValueError(f"invalid value {value!r} for runtime-config key {key!r}")
        parsed[key.strip().rstrip("/")] = value == "true"
    return parsed


def _enabled(groups: tuple[str, str], version: str, runtime_config: Mapping[str, bool]) -> bool:
    """Whether a version is served; `groups` are the upstream and the served spelling of its group."""
    group = groups[0]
    for spelling in groups:
        gv = f"{spelling}/{version}" if spelling else version
        if gv in runtime_config:
            return runtime_config[gv]
    if not group and f"api/{version}" in runtime_config:
        return runtime_config[f"api/{version}"]
    stage = version_stage(version)
    stage_key = {"ga": "api/ga", "beta": "api/beta", "alpha": "api/alpha"}.get(stage)
    if stage_key in runtime_config:
        return runtime_config[stage_key]
    if "api/all" in runtime_config:
        return runtime_config["api/all"]
    return stage == "ga"


@dataclass(frozen=True)
class Group:
    name: str
    versions: tuple[str, ...]

    @property
    def preferred(self) -> str:
        return self.versions[0]


class ResourceSet:
    """Lookups over the resources one server serves."""

    def __init__(self, profile: Profile, runtime_config: Mapping[str, bool] | None = None) -> None:
        self.profile = profile
        runtime_config = runtime_config or {}
        self._by_path: dict[tuple[str, str, str], Resource] = {}
        self._by_kind: dict[tuple[str, str, str], Resource] = {}
        for row in _table():
            upstream_group, version = row["group"], row["version"]
            group = profile.group(upstream_group)
            if not _enabled((upstream_group, group), version, runtime_config):
                continue
            resource = Resource(
                group=group,
                upstream_group=upstream_group,
                version=version,
                name=row["resource"],
                kind=row["kind"],
                singular=row["singular"],
                namespaced=row["namespaced"],
                verbs=frozenset(row["verbs"]),
                short_names=tuple(row["shortNames"]),
                categories=tuple(row["categories"]),
                definition=row["definition"],
                delete_returns_object=row["deleteReturnsObject"],
                subresources={
                    name: Subresource(
                        name,
                        profile.group(sub["group"]) if sub["group"] else group,
                        sub["version"] or version,
                        sub["kind"],
                        tuple(sub["verbs"]),
                        sub["definition"],
                    )
                    for name, sub in row["subresources"].items()
                },
            )
            self._by_path[(group, version, resource.name)] = resource
            self._by_kind.setdefault((group, version, resource.kind), resource)
        self._order = {profile.group(name): index for index, name in enumerate(GROUP_ORDER)}
        self._extra_versions: dict[str, tuple[str, ...]] = {}
        self._regroup()

    def _regroup(self) -> None:
        versions: dict[str, set[str]] = {}
        for group, version, _ in self._by_path:
            versions.setdefault(group, set()).add(version)
        self.groups = [
            Group(name, self._extra_versions.get(name) or tuple(sorted(found, key=version_priority)))
            for name, found in sorted(versions.items(), key=lambda item: (self._order.get(item[0], 999), item[0]))
        ]
        self._groups = {group.name: group for group in self.groups}

    def replace_group(self, group: str, resources: Iterable[Resource], version_order: Iterable[str]) -> None:
        """Serve exactly `resources` in a group that is not built in (the resources of its CRDs), its
        versions in `version_order` (upstream orders a CRD group's versions by kube-like priority)."""
        for key in [key for key in self._by_path if key[0] == group]:
            del self._by_path[key]
        for key in [key for key in self._by_kind if key[0] == group]:
            del self._by_kind[key]
        for resource in resources:
            self._by_path[(group, resource.version, resource.name)] = resource
            self._by_kind.setdefault((group, resource.version, resource.kind), resource)
        served = {version for g, version, _ in self._by_path if g == group}
        order = tuple(version for version in version_order if version in served)
        if order:
            self._extra_versions[group] = order
        else:
            self._extra_versions.pop(group, None)
        self._regroup()

    def withhold(self, keys: Iterable[tuple[str, str, str]]) -> None:
        """Stop serving these (group, version, resource): a server emulating an earlier release."""
        for group, version, name in keys:
            resource = self._by_path.pop((group, version, name), None)
            if resource is not None and self._by_kind.get((group, version, resource.kind)) is resource:
                del self._by_kind[(group, version, resource.kind)]
        self._regroup()

    def get(self, group: str, version: str, resource: str) -> Resource | None:
        return self._by_path.get((group, version, resource))

    def for_kind(self, group: str, version: str, kind: str) -> Resource | None:
        return self._by_kind.get((group, version, kind))

    def group(self, name: str) -> Group | None:
        return self._groups.get(name)

    def in_group_version(self, group: str, version: str) -> list[Resource]:
        return sorted(
            (r for (g, v, _), r in self._by_path.items() if g == group and v == version), key=lambda r: r.name
        )

    def __iter__(self):
        return iter(self._by_path.values())

    def preferred(self) -> list[Resource]:
        """One resource per group and plural, at its group's preferred version."""
        return [r for r in self if self._groups[r.group].preferred == r.version]
