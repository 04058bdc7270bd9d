"""Policy rules as RBAC reads them: whether one allows a request, and whether some rules cover others.

Matching follows upstream's `RuleAllows`: `*` stands for every verb, group, resource or URL; a rule's
`*/status` matches the `status` subresource of any resource; a URL ending in `*` matches by prefix; a
rule with resource names matches only requests naming one of them. Coverage (for escalation checks)
breaks the granted rules into single-verb, single-resource pieces and asks that each be covered by one
held rule, which is how upstream lists exactly the missing permissions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from svc.apiserver.authz.authorizer import Attributes

ALL = "*"


@dataclass(frozen=True, slots=True)
class Rule:
    verbs: tuple[str, ...] = ()
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    @classmethod
    def of(cls, rule: dict[str, Any]) -> Rule:
        def strings(name: str) -> tuple[str, ...]:
            values = rule.get(name) or ()
            return tuple(value for value in values if isinstance(value, str)) if isinstance(values, list) else ()

        return cls(
            strings("verbs"),
            strings("apiGroups"),
            strings("resources"),
            strings("resourceNames"),
            strings("nonResourceURLs"),
        )

    def to_dict(self) -> dict[str, list[str]]:
        """The API form (field order and omission as upstream serializes a PolicyRule)."""
        fields = (
            ("verbs", self.verbs),
            ("apiGroups", self.api_groups),
            ("resources", self.resources),
            ("resourceNames", self.resource_names),
            ("nonResourceURLs", self.non_resource_urls),
        )
        return {name: list(values) for name, values in fields if values or name == "verbs"}

    def compact(self) -> str:
        """Upstream's `CompactString`, as escalation errors print a missing rule."""
        parts = [
            f"{label}:{_go_quoted(values)}"
            for label, values in (
                ("APIGroups", self.api_groups),
                ("Resources", self.resources),
                ("NonResourceURLs", self.non_resource_urls),
                ("ResourceNames", self.resource_names),
                ("Verbs", self.verbs),
            )
            if values
        ]
        return "{" + ", ".join(parts) + "}"


def _go_quoted(values: Iterable[str]) -> str:
    """A string list as Go's `%q` prints it: `["get" "list"]`."""
    return "[" + " ".join(orjson.dumps(value).decode() for value in values) + "]"


def rules_of(obj: dict[str, Any]) -> tuple[Rule, ...]:
    rules = obj.get("rules") or []
    return tuple(Rule.of(rule) for rule in rules if isinstance(rule, dict)) if isinstance(rules, list) else ()


def _resource_matches(rule: Rule, combined: str, subresource: str) -> bool:
    for resource in rule.resources:
        if resource in (ALL, combined):
            return True
        if subresource and resource == "*/" + subresource:
            return True
    return False


def _url_matches(rule_url: str, path: str) -> bool:
    """Upstream's `NonResourceURLMatches` (a held URL covers a granted one by the same test)."""
    if rule_url in (ALL, path):
        return True
    return rule_url.endswith("*") and path.startswith(rule_url.rstrip("*"))


def allows(rule: Rule, attributes: Attributes) -> bool:
    if ALL not in rule.verbs and attributes.verb not in rule.verbs:
        return False
    if not attributes.is_resource_request:
        return any(_url_matches(url, attributes.path) for url in rule.non_resource_urls)
    if ALL not in rule.api_groups and attributes.api_group not in rule.api_groups:
        return False
    subresource = attributes.subresource
    combined = f"{attributes.resource}/{subresource}" if subresource else attributes.resource
    if not _resource_matches(rule, combined, subresource):
        return False
    return not rule.resource_names or attributes.name in rule.resource_names


def _url_covers(owner_url: str, url: str) -> bool:
    return owner_url == url or (owner_url.endswith("*") and url.startswith(owner_url.rstrip("*")))


def breakdown(rule: Rule) -> list[Rule]:
    """One rule per (group, resource, verb[, name]) and per (URL, verb)."""
    pieces = [
        Rule((verb,), (group,), (resource,), (name,) if name else ())
        for group in rule.api_groups
        for resource in rule.resources
        for verb in rule.verbs
        for name in (rule.resource_names or ("",))
    ]
    pieces += [Rule((verb,), non_resource_urls=(url,)) for url in rule.non_resource_urls for verb in rule.verbs]
    return pieces


def _resources_cover(owner: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    if ALL in owner:
        return True
    for resource in wanted:
        if resource in owner:
            continue
        _, slash, subresource = resource.partition("/")
        if not slash or "*/" + subresource not in owner:
            return False
    return True


def _covers(owner: Rule, piece: Rule) -> bool:
    if ALL not in owner.verbs and not set(piece.verbs) <= set(owner.verbs):
        return False
    if ALL not in owner.api_groups and not set(piece.api_groups) <= set(owner.api_groups):
        return False
    if not _resources_cover(owner.resources, piece.resources):
        return False
    for url in piece.non_resource_urls:
        if not any(_url_covers(owner_url, url) for owner_url in owner.non_resource_urls):
            return False
    if owner.resource_names:
        return bool(piece.resource_names) and set(piece.resource_names) <= set(owner.resource_names)
    return True


def uncovered(owner: Iterable[Rule], wanted: Iterable[Rule]) -> list[Rule]:
    """The pieces of `wanted` that no rule of `owner` covers (empty: `owner` covers `wanted`)."""
    held = list(owner)
    return [piece for rule in wanted for piece in breakdown(rule) if not any(_covers(h, piece) for h in held)]


def compact(rules: list[Rule]) -> list[Rule]:
    """Pieces differing only in their verb joined into one rule (upstream's `CompactRules`)."""
    joined: dict[tuple[str, str], list[str]] = {}
    order: list[Rule | tuple[str, str]] = []
    for rule in rules:
        simple = len(rule.api_groups) == 1 and len(rule.resources) == 1
        if not simple or rule.resource_names or rule.non_resource_urls:
            order.append(rule)
            continue
        key = (rule.api_groups[0], rule.resources[0])
        if key not in joined:
            joined[key] = []
            order.append(key)
        joined[key].extend(verb for verb in rule.verbs if verb not in joined[key])
    return [
        entry if isinstance(entry, Rule) else Rule(tuple(joined[entry]), (entry[0],), (entry[1],)) for entry in order
    ]
