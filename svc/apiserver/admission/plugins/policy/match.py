"""Which requests a policy's `matchConstraints` and a binding's `matchResources` select.

Rules name operations, groups, versions, resources (`pods`, `pods/status`, `*/scale`, `*`) and a
scope; excluded rules win over included ones; the namespace selector reads the labels of the
request's namespace (or of a Namespace object itself) and the object selector the labels of the
new or the old object. An absent `matchResources` (a binding without one) matches everything its
policy matches.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from svc.machinery.labels import SelectorError, label_selector_from_dict
from svc.registry.admission import Attributes

NamespaceGetter = Callable[[str], Awaitable[dict[str, Any] | None]]


class ConfigurationError(Exception):
    """A selector that cannot be parsed: upstream treats it as a misconfigured policy."""


def _listed(values: Any, value: str) -> bool:
    return isinstance(values, list) and ("*" in values or value in values)


def _resource_listed(resources: Any, resource: str, subresource: str) -> bool:
    if not isinstance(resources, list):
        return False
    wanted = f"{resource}/{subresource}" if subresource else resource
    for entry in resources:
        if entry in ("*/*", wanted):
            return True
        name, _, sub = str(entry).partition("/")
        if entry == "*" and not subresource:
            return True
        if sub and ((name == "*" and sub == subresource) or (name == resource and sub == "*" and subresource)):
            return True
    return False


def rule_matches(rule: Mapping[str, Any], attributes: Attributes) -> bool:
    resource = attributes.resource
    scope = rule.get("scope") or "*"
    if (scope == "Cluster" and resource.namespaced) or (scope == "Namespaced" and not resource.namespaced):
        return False
    names = rule.get("resourceNames")
    if names and attributes.name not in names:
        return False
    return (
        _listed(rule.get("operations"), attributes.operation.value)
        and _listed(rule.get("apiGroups"), resource.group)
        and _listed(rule.get("apiVersions"), resource.version)
        and _resource_listed(rule.get("resources"), resource.name, attributes.subresource)
    )


def _selects(selector: Any, labels: Mapping[str, str]) -> bool:
    if selector is None:
        return True
    try:
        return label_selector_from_dict(selector).matches(labels)
    except SelectorError as err:
        raise ConfigurationError(str(err)) from err


def _labels(obj: Mapping[str, Any] | None) -> Mapping[str, str]:
    return ((obj or {}).get("metadata") or {}).get("labels") or {}


class Matcher:
    def __init__(self, get_namespace: NamespaceGetter) -> None:
        self._get_namespace = get_namespace

    async def matches(
        self, match: Mapping[str, Any] | None, attributes: Attributes, *, rules_required: bool = False
    ) -> bool:
        """Whether `match` selects the request; raises `ConfigurationError` on a bad selector."""
        if match is None:
            return True
        rules = match.get("resourceRules") or []
        if (rules or rules_required) and not any(rule_matches(rule, attributes) for rule in rules):
            return False
        if any(rule_matches(rule, attributes) for rule in match.get("excludeResourceRules") or []):
            return False
        objects = [obj for obj in (attributes.object, attributes.old_object) if obj is not None]
        if not any(_selects(match.get("objectSelector"), _labels(obj)) for obj in objects or [None]):
            return False
        return await self._namespace_matches(match.get("namespaceSelector"), attributes)

    async def namespace(self, name: str) -> dict[str, Any] | None:
        return await self._get_namespace(name)

    async def _namespace_matches(self, selector: Any, attributes: Attributes) -> bool:
        if selector is None or (not selector.get("matchLabels") and not selector.get("matchExpressions")):
            return True
        resource = attributes.resource
        if resource.name == "namespaces" and not resource.upstream_group:
            return _selects(selector, _labels(attributes.object or attributes.old_object))
        if not resource.namespaced or not attributes.namespace:
            return True
        namespace = await self._get_namespace(attributes.namespace)
        return _selects(selector, _labels(namespace))
