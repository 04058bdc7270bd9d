"""Which FlowSchema a request falls under, and its flow (upstream's `matching.go`).

Schemas are tried by ascending `matchingPrecedence`, ties by name; the first with a rule whose
subjects, verb and target all match wins. A schema naming a priority level that does not exist is
dangling and skipped. The flow distinguisher is the user name (`ByUser`), the namespace
(`ByNamespace`) or nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from svc.apiserver.request_info import RequestInfo
from svc.registry.admission import UserInfo

Obj = dict[str, Any]
_SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


def _subject_matches(subject: Obj, user: UserInfo) -> bool:
    kind = subject.get("kind")
    if kind == "User":
        name = (subject.get("user") or {}).get("name")
        return name in ("*", user.name)
    if kind == "Group":
        name = (subject.get("group") or {}).get("name")
        return name == "*" or name in user.groups
    if kind == "ServiceAccount":
        account = subject.get("serviceAccount") or {}
        if not user.name.startswith(_SERVICE_ACCOUNT_PREFIX):
            return False
        namespace, _, name = user.name[len(_SERVICE_ACCOUNT_PREFIX) :].partition(":")
        return namespace == account.get("namespace") and account.get("name") in ("*", name)
    return False


def _listed(values: Iterable[str], value: str) -> bool:
    values = list(values or ())
    return "*" in values or value in values


def _resource_rule_matches(rule: Obj, info: RequestInfo) -> bool:
    if not _listed(rule.get("verbs") or (), info.verb) or not _listed(rule.get("apiGroups") or (), info.api_group):
        return False
    resources = rule.get("resources") or ()
    target = f"{info.resource}/{info.subresource}" if info.subresource else info.resource
    if "*" not in resources and target not in resources:
        return False
    if not info.namespace:
        return bool(rule.get("clusterScope"))
    return _listed(rule.get("namespaces") or (), info.namespace)


def _url_matches(pattern: str, path: str) -> bool:
    if pattern in ("*", path):
        return True
    if pattern.endswith("/*"):
        stem = pattern[:-2]
        return path == stem or path.startswith(stem + "/")
    return False


def _non_resource_rule_matches(rule: Obj, info: RequestInfo) -> bool:
    if not _listed(rule.get("verbs") or (), info.verb):
        return False
    return any(_url_matches(pattern, info.path) for pattern in rule.get("nonResourceURLs") or ())


def _rules_match(rules: Obj, user: UserInfo, info: RequestInfo) -> bool:
    if not any(_subject_matches(subject, user) for subject in rules.get("subjects") or ()):
        return False
    if info.is_resource_request:
        return any(_resource_rule_matches(rule, info) for rule in rules.get("resourceRules") or ())
    return any(_non_resource_rule_matches(rule, info) for rule in rules.get("nonResourceRules") or ())


@dataclass(frozen=True)
class Schema:
    """A FlowSchema reduced to what classification reads."""

    name: str
    uid: str
    precedence: int
    level: str
    distinguisher: str
    rules: tuple[Obj, ...]

    @classmethod
    def of(cls, obj: Obj) -> Schema:
        spec = obj.get("spec") or {}
        return cls(
            name=obj["metadata"]["name"],
            uid=obj["metadata"].get("uid", ""),
            precedence=int(spec.get("matchingPrecedence") or 1000),
            level=(spec.get("priorityLevelConfiguration") or {}).get("name", ""),
            distinguisher=(spec.get("distinguisherMethod") or {}).get("type", ""),
            rules=tuple(spec.get("rules") or ()),
        )

    def matches(self, user: UserInfo, info: RequestInfo) -> bool:
        return any(_rules_match(rules, user, info) for rules in self.rules)

    def flow_distinguisher(self, user: UserInfo, info: RequestInfo) -> str:
        if self.distinguisher == "ByUser":
            return user.name
        if self.distinguisher == "ByNamespace":
            return info.namespace
        return ""


def ordered(schemas: Iterable[Schema]) -> list[Schema]:
    return sorted(schemas, key=lambda schema: (schema.precedence, schema.name))


def classify(schemas: list[Schema], user: UserInfo, info: RequestInfo) -> Schema | None:
    """The first matching schema of `schemas` (already ordered, dangling ones left out)."""
    for schema in schemas:
        if schema.matches(user, info):
            return schema
    return None
