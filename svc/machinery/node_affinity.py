"""Whether a pod may run on a node by its node selector, required node affinity and tolerations.

Shared by the simulated scheduler and the controllers that decide placement themselves (the
daemonset controller), with upstream's matching rules: node selector terms are ORed, their
expressions ANDed; `matchFields` reads `metadata.name`; a toleration with an empty key and
`Exists` tolerates every taint; an empty effect matches every effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Obj = dict[str, Any]


def tolerates(tolerations: list[Obj], taint: Obj) -> bool:
    for toleration in tolerations:
        effect = toleration.get("effect") or ""
        if effect and effect != taint.get("effect"):
            continue
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or "Equal"
        if not key and operator == "Exists":
            return True
        if key != taint.get("key"):
            continue
        if operator == "Exists" or (toleration.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _expression_matches(expression: Obj, values: Mapping[str, str]) -> bool:
    key, operator = expression.get("key", ""), expression.get("operator", "")
    wanted = expression.get("values") or []
    present = key in values
    if operator == "In":
        return present and values[key] in wanted
    if operator == "NotIn":
        return not present or values[key] not in wanted
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(wanted) == 1:
        try:
            have, bound = int(values[key]), int(wanted[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def _term_matches(term: Obj, node: Obj) -> bool:
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False
    labels = node["metadata"].get("labels") or {}
    name = {"metadata.name": node["metadata"]["name"]}
    return all(_expression_matches(e, labels) for e in expressions) and all(
        _expression_matches(f, name) for f in fields
    )


def node_affinity_matches(pod: Obj, node: Obj) -> bool:
    spec = pod.get("spec") or {}
    labels = node["metadata"].get("labels") or {}
    if any(labels.get(key) != value for key, value in (spec.get("nodeSelector") or {}).items()):
        return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if not required:
        return True
    return any(_term_matches(term, node) for term in required.get("nodeSelectorTerms") or [])
