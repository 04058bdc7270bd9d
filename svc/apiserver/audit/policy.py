"""The audit policy file: `audit.k8s.io/v1` Policy rules, checked at start as upstream checks them,
and the level a request gets (the first rule that matches decides; no match is level None)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import yaml

if TYPE_CHECKING:
    from svc.apiserver.request_info import RequestInfo
    from svc.registry.admission import UserInfo

API_VERSIONS = ("audit.k8s.io/v1", "audit.svc/v1")
STAGES = ("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
_CACHED_SHAPES = 4096
"""Request shapes whose decision a policy keeps; past that it starts over (distinct shapes are few in practice)."""
_GROUP_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class Level(IntEnum):
    NONE = 0
    METADATA = 1
    REQUEST = 2
    REQUEST_RESPONSE = 3

    @property
    def wire(self) -> str:
        return _LEVEL_NAMES[self]


_LEVEL_NAMES = {
    Level.NONE: "None",
    Level.METADATA: "Metadata",
    Level.REQUEST: "Request",
    Level.REQUEST_RESPONSE: "RequestResponse",
}
_LEVELS = {name: level for level, name in _LEVEL_NAMES.items()}


@dataclass(frozen=True)
class GroupResources:
    group: str = ""
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()

    def matches(self, resource: str, subresource: str, name: str) -> bool:
        if not self.resources:
            return True
        if self.resource_names and name not in self.resource_names:
            return False
        combined = f"{resource}/{subresource}" if subresource else resource
        for pattern in self.resources:
            if pattern in (combined, "*"):
                return True
            if subresource and pattern.startswith("*/") and pattern[2:] == subresource:
                return True
            if pattern.endswith("/*") and pattern[:-2] == resource:
                return True
        return False


class Request(NamedTuple):
    """What a rule looks at: the request's user, verb and target (a tuple: built once per request)."""

    user: str
    groups: tuple[str, ...]
    verb: str
    is_resource_request: bool
    path: str = ""
    namespace: str = ""
    api_group: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""


@dataclass(frozen=True)
class Rule:
    level: Level
    users: tuple[str, ...] = ()
    user_groups: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    resources: tuple[GroupResources, ...] = ()
    namespaces: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool | None = None

    def matches(self, request: Request) -> bool:
        if self.users and request.user not in self.users:
            return False
        if self.user_groups and not set(self.user_groups) & set(request.groups):
            return False
        if self.verbs and request.verb not in self.verbs:
            return False
        if self.namespaces or self.resources:
            return self._matches_resource(request)
        if self.non_resource_urls:
            return not request.is_resource_request and any(
                url == "*" or url == request.path or (url.endswith("*") and request.path.startswith(url[:-1]))
                for url in self.non_resource_urls
            )
        return True

    def _matches_resource(self, request: Request) -> bool:
        if not request.is_resource_request:
            return False
        if self.namespaces and request.namespace not in self.namespaces:
            return False
        if not self.resources:
            return True
        return any(
            gr.group == request.api_group and gr.matches(request.resource, request.subresource, request.name)
            for gr in self.resources
        )


@dataclass(frozen=True)
class Decision:
    level: Level
    omit_stages: frozenset[str] = frozenset()
    omit_managed_fields: bool = False


@dataclass(frozen=True)
class Policy:
    rules: tuple[Rule, ...]
    omit_stages: tuple[str, ...] = ()
    omit_managed_fields: bool = False
    _decisions: dict[tuple[Any, ...], Decision] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Decisions by request shape: the rules are walked once per shape, not once per request."""
    _by_name: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name = any(gr.resource_names for rule in self.rules for gr in rule.resources)
        object.__setattr__(self, "_by_name", by_name)

    def _shape(self, request: Request) -> tuple[Any, ...]:
        """What the decision depends on: a resource request's path never matters, its name only
        when a rule lists resourceNames (so GETs of different objects share one decision)."""
        if not request.is_resource_request:
            return (request.user, request.groups, request.verb, request.path)
        name = request.name if self._by_name else ""
        return (
            request.user,
            request.groups,
            request.verb,
            request.namespace,
            request.api_group,
            request.resource,
            request.subresource,
            name,
        )

    def decide(self, request: Request) -> Decision:
        shape = self._shape(request)
        decision = self._decisions.get(shape)
        return self._remember(shape, request) if decision is None else decision

    def decide_for(self, info: RequestInfo, user: UserInfo | None) -> Decision:
        """`decide` for a request as the filters hold it: its shape (the same key) is read straight
        from `info` and `user`, and the `Request` is built only for a shape not seen before."""
        username, groups = (user.name, user.groups) if user is not None else ("", ())
        if info.is_resource_request:
            name = info.name if self._by_name else ""
            shape = (username, groups, info.verb, info.namespace, info.api_group, info.resource, info.subresource, name)
        else:
            shape = (username, groups, info.verb, info.path)
        decision = self._decisions.get(shape)
        if decision is not None:
            return decision
        request = Request(
            username,
            groups,
            info.verb,
            info.is_resource_request,
            info.path,
            info.namespace,
            info.api_group,
            info.resource,
            info.subresource,
            info.name,
        )
        return self._remember(shape, request)

    def _remember(self, shape: tuple[Any, ...], request: Request) -> Decision:
        if len(self._decisions) >= _CACHED_SHAPES:
            self._decisions.clear()
        decision = self._decisions[shape] = self._evaluate(request)
        return decision

    def _evaluate(self, request: Request) -> Decision:
        for rule in self.rules:
            if rule.matches(request):
                omit_managed = (
                    self.omit_managed_fields if rule.omit_managed_fields is None else rule.omit_managed_fields
                )
                return Decision(rule.level, frozenset(self.omit_stages) | frozenset(rule.omit_stages), omit_managed)
        return Decision(Level.NONE)


@dataclass
class _Errors:
    items: list[str] = field(default_factory=list)

    def add(self, path: str, message: str) -> None:
        self.items.append(f"{path}: {message}")


def _strings(value: Any, path: str, errors: _Errors) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        errors.add(path, "Invalid value: expected a list of strings")
        return ()
    return tuple(value)


def _stages(value: Any, path: str, errors: _Errors) -> tuple[str, ...]:
    stages = _strings(value, path, errors)
    supported = ", ".join(f'"{stage}"' for stage in STAGES)
    for index, stage in enumerate(stages):
        if stage not in STAGES:
            errors.add(f"{path}[{index}]", f'Unsupported value: "{stage}": supported values: {supported}')
    return stages


def _level(value: Any, path: str, errors: _Errors) -> Level:
    if value in (None, ""):
        errors.add(path, "Required value")
        return Level.NONE
    if value not in _LEVELS:
        supported = ", ".join(f'"{name}"' for name in _LEVELS)
        errors.add(path, f'Unsupported value: "{value}": supported values: {supported}')
        return Level.NONE
    return _LEVELS[value]


def _group_resources(value: Any, path: str, errors: _Errors) -> GroupResources:
    if not isinstance(value, dict):
        errors.add(path, "Invalid value: expected an object")
        return GroupResources()
    group = value.get("group") or ""
    if group and not _GROUP_NAME.match(group):
        errors.add(f"{path}.group", f'Invalid value: "{group}": must be a valid DNS subdomain')
    resources = _strings(value.get("resources"), f"{path}.resources", errors)
    names = _strings(value.get("resourceNames"), f"{path}.resourceNames", errors)
    if names and not resources:
        errors.add(
            f"{path}.resourceNames", f"Invalid value: {list(names)}: using resourceNames requires at least one resource"
        )
    return GroupResources(group, resources, names)


def _non_resource_urls(value: Any, path: str, errors: _Errors) -> tuple[str, ...]:
    urls = _strings(value, path, errors)
    for index, url in enumerate(urls):
        if url == "*":
            continue
        if not url.startswith("/"):
            errors.add(
                f"{path}[{index}]", f"Invalid value: \"{url}\": non-resource URL rules must begin with a '/' character"
            )
        if "*" in url[:-1]:
            errors.add(
                f"{path}[{index}]",
                f"Invalid value: \"{url}\": non-resource URL wildcards ('*') must be the final character of the rule",
            )
    return urls


def _rule(value: Any, path: str, errors: _Errors) -> Rule:
    if not isinstance(value, dict):
        errors.add(path, "Invalid value: expected an object")
        return Rule(Level.NONE)
    resources = value.get("resources") or []
    if not isinstance(resources, list):
        errors.add(f"{path}.resources", "Invalid value: expected a list")
        resources = []
    rule = Rule(
        level=_level(value.get("level"), f"{path}.level", errors),
        users=_strings(value.get("users"), f"{path}.users", errors),
        user_groups=_strings(value.get("userGroups"), f"{path}.userGroups", errors),
        verbs=_strings(value.get("verbs"), f"{path}.verbs", errors),
        resources=tuple(_group_resources(gr, f"{path}.resources[{i}]", errors) for i, gr in enumerate(resources)),
        namespaces=_strings(value.get("namespaces"), f"{path}.namespaces", errors),
        non_resource_urls=_non_resource_urls(value.get("nonResourceURLs"), f"{path}.nonResourceURLs", errors),
        omit_stages=_stages(value.get("omitStages"), f"{path}.omitStages", errors),
        omit_managed_fields=value.get("omitManagedFields"),
    )
    if rule.non_resource_urls and (rule.resources or rule.namespaces):
        errors.add(
            f"{path}.nonResourceURLs",
            f"Invalid value: {list(rule.non_resource_urls)}: "
            "rules cannot apply to both regular resources and non-resource URLs",
        )
    return rule


def parse_policy(document: Any) -> Policy:
    """A decoded Policy document; ValueError naming every problem, as upstream's validation lists them."""
    if not isinstance(document, dict):
        raise ValueError("the policy is not an object")
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if api_version not in API_VERSIONS or kind != "Policy":
        raise ValueError(f'no kind "{kind}" is registered for version "{api_version}"')
    errors = _Errors()
    rules = document.get("rules") or []
    if not isinstance(rules, list):
        raise ValueError("rules: Invalid value: expected a list")
    policy = Policy(
        rules=tuple(_rule(rule, f"rules[{index}]", errors) for index, rule in enumerate(rules)),
        omit_stages=_stages(document.get("omitStages"), "omitStages", errors),
        omit_managed_fields=bool(document.get("omitManagedFields", False)),
    )
    if errors.items:
        raise ValueError("[" + ", ".join(errors.items) + "]")
    if not policy.rules:
        raise ValueError("loaded illegal policy with 0 rules")
    return policy


def load_policy(path: str) -> Policy:
    """The policy in `path`; ValueError with one line when it cannot be read or is invalid."""
    try:
        document = yaml.safe_load(Path(path).read_text())
        return parse_policy(document)
    except (OSError, yaml.YAMLError, ValueError) as error:
        text = " ".join(str(error).split())
        raise ValueError(f'failed to load audit policy file "{path}": {text}') from None
