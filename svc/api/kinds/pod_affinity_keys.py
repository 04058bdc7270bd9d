"""`matchLabelKeys` and `mismatchLabelKeys` of pod (anti-)affinity terms folded into the term's label
selector on create, as upstream's pod strategy does: each key the pod carries as a label becomes an `In`
(match) or `NotIn` (mismatch) requirement on the pod's own value. Validation then sees the merged
selector, so a key also named by the selector is reported."""

from __future__ import annotations

from typing import Any

Obj = dict[str, Any]


def _terms(affinity: Obj) -> list[Obj]:
    terms: list[Obj] = []
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = affinity.get(kind)
        if not isinstance(rules, dict):
            continue
        terms += [t for t in rules.get("requiredDuringSchedulingIgnoredDuringExecution") or [] if isinstance(t, dict)]
        for weighted in rules.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
            term = weighted.get("podAffinityTerm") if isinstance(weighted, dict) else None
            if isinstance(term, dict):
                terms.append(term)
    return terms


def _merge(term: Obj, labels: dict[str, Any]) -> None:
    selector = term.get("labelSelector")
    keys = [(key, "In") for key in term.get("matchLabelKeys") or []]
    keys += [(key, "NotIn") for key in term.get("mismatchLabelKeys") or []]
    if not isinstance(selector, dict) or not keys:
        return
    added = [
        {"key": key, "operator": operator, "values": [labels[key]]}
        for key, operator in keys
        if isinstance(key, str) and isinstance(labels.get(key), str)
    ]
    if added:
        selector["matchExpressions"] = [*(selector.get("matchExpressions") or []), *added]


def merge_label_keys(pod: Obj) -> None:
    """Fold each affinity term's label keys into its selector, using the pod's labels."""
    affinity = (pod.get("spec") or {}).get("affinity")
    if not isinstance(affinity, dict):
        return
    labels = (pod.get("metadata") or {}).get("labels") or {}
    for term in _terms(affinity):
        _merge(term, labels)
