"""ClusterRole aggregation: a role with an `aggregationRule` holds the rules of every ClusterRole its
selectors match (upstream's clusterrole-aggregation controller).

The controller that keeps stored roles aggregated belongs to the controller manager; this is the one
function it needs, also used to precompute the bootstrap roles `admin`, `edit` and `view` so they
grant their permissions from the first start.
"""

from __future__ import annotations

from typing import Any

from svc.machinery.labels import label_selector_from_dict

Obj = dict[str, Any]


def _selectors(role: Obj) -> list[Any]:
    rule = role.get("aggregationRule")
    selectors = rule.get("clusterRoleSelectors") if isinstance(rule, dict) else None
    return [label_selector_from_dict(selector) for selector in selectors or () if isinstance(selector, dict)]


def aggregated_rules(role: Obj, roles: list[Obj]) -> list[Obj]:
    """The rules `role` aggregates: those of the roles its selectors match, by role name, each once."""
    selectors = _selectors(role)
    name = (role.get("metadata") or {}).get("name")
    rules: list[Obj] = []
    for other in sorted(roles, key=lambda r: (r.get("metadata") or {}).get("name", "")):
        metadata = other.get("metadata") or {}
        if metadata.get("name") == name:
            continue
        labels = metadata.get("labels") or {}
        if any(selector.matches(labels) for selector in selectors):
            rules.extend(rule for rule in other.get("rules") or () if rule not in rules)
    return rules


def aggregate(roles: list[Obj]) -> None:
    """Fill the rules of every aggregating role in place, until aggregates of aggregates settle."""
    aggregating = [role for role in roles if _selectors(role)]
    for _ in range(len(aggregating) + 1):
        changed = False
        for role in aggregating:
            rules = aggregated_rules(role, roles)
            if rules != role.get("rules"):
                role["rules"] = rules
                changed = True
        if not changed:
            return
