"""What a pod still held by scheduling gates may change besides the usual (upstream 1.36
`ValidatePodUpdate`, gated part): its node selector and required node affinity may only grow, so a
controller (Kueue, say) can narrow where the pod goes before releasing it. Additions pass and are taken
back from the stored spec before the spec comparison; mutations and removals are refused.

Bad values print as Go's `%#v` of the internal types, as upstream's error text does.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup
from svc.machinery.field_errors import FieldError, Rendered, invalid
from svc.machinery.gotext.quoting import quote

_REQUIRED: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_REQUIREMENT: Final = "core.NodeSelectorRequirement"


def _text(node: Any, key: str) -> str:
    return quote(str(lookup(node, key) or ""))


def _strings(values: Any) -> str:
    if values is None:
        return "[]string(nil)"
    return "[]string{" + ", ".join(quote(str(value)) for value in values) + "}"


def _requirements(values: Any) -> str:
    if values is None:
        return f"[]{_REQUIREMENT}(nil)"
    shown = [
        f"{_REQUIREMENT}{{Key:{_text(r, 'key')}, Operator:{_text(r, 'operator')}, "
        f"Values:{_strings(lookup(r, 'values'))}}}"
        for r in values
    ]
    return f"[]{_REQUIREMENT}{{" + ", ".join(shown) + "}"


def _term(term: Any) -> str:
    expressions, fields = _requirements(lookup(term, "matchExpressions")), _requirements(lookup(term, "matchFields"))
    return f"core.NodeSelectorTerm{{MatchExpressions:{expressions}, MatchFields:{fields}}}"


def _terms(terms: list[Any] | None) -> Rendered:
    if terms is None:
        return Rendered("[]core.NodeSelectorTerm(nil)")
    return Rendered("[]core.NodeSelectorTerm{" + ", ".join(_term(term) for term in terms) + "}")


def _selector(selector: Any) -> Rendered:
    if not isinstance(selector, dict):
        return Rendered("map[string]string(nil)")
    pairs = ", ".join(f"{quote(str(key))}:{quote(str(value))}" for key, value in sorted(selector.items()))
    return Rendered("map[string]string{" + pairs + "}")


def _only_additions(new: Any, old: Any) -> bool:
    """`validateNodeSelectorTermHasOnlyAdditions`: the stored requirements stay, in order, first."""
    old_exprs, old_fields = items(lookup(old, "matchExpressions")), items(lookup(old, "matchFields"))
    new_exprs, new_fields = items(lookup(new, "matchExpressions")), items(lookup(new, "matchFields"))
    if not old_exprs and not old_fields and (new_exprs or new_fields):
        return False
    return new_exprs[: len(old_exprs)] == old_exprs and new_fields[: len(old_fields)] == old_fields


def _selector_errors(new: Any, old: Any, path: str) -> list[FieldError]:
    new_map = new if isinstance(new, dict) else {}
    for key, value in (old if isinstance(old, dict) else {}).items():
        if key not in new_map or new_map[key] != value:
            detail = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
            return [invalid(path, _selector(new), detail)]
    return []


def _affinity_errors(new: Any, old: Any, path: str) -> list[FieldError]:
    old_required = lookup(old, _REQUIRED)
    if old_required is None:
        return []
    old_terms = items(lookup(old_required, "nodeSelectorTerms"))
    new_required = lookup(new, _REQUIRED)
    new_terms = lookup(new_required, "nodeSelectorTerms") if new_required is not None else None
    terms_path = f"{path}.{_REQUIRED}.nodeSelectorTerms"
    new_terms = items(new_terms) if new_terms is not None else None
    if old_terms and len(old_terms) != len(items(new_terms)):
        detail = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
        return [invalid(terms_path, _terms(new_terms), detail)]
    detail = "only additions are allowed (no mutations or deletions)"
    return [
        invalid(f"{terms_path}[{index}]", Rendered(_term(new_terms[index])), detail)
        for index, term in enumerate(old_terms)
        if not _only_additions(new_terms[index], term)
    ]


def gated_update_errors(munged: dict[str, Any], old: dict[str, Any], path: str) -> list[FieldError]:
    """For a gated pod: check the node selector and node affinity changes, then take the stored ones
    back into `munged` (the new spec with every allowed change undone) as upstream does."""
    if not items(old.get("schedulingGates")):
        return []
    errors: list[FieldError] = []
    if munged.get("nodeSelector") != old.get("nodeSelector"):
        errors += _selector_errors(munged.get("nodeSelector"), old.get("nodeSelector"), f"{path}.nodeSelector")
        _restore(munged, old, "nodeSelector")
    old_node = lookup(old, "affinity.nodeAffinity")
    new_node = lookup(munged, "affinity.nodeAffinity")
    if new_node != old_node:
        errors += _affinity_errors(new_node, old_node, f"{path}.affinity.nodeAffinity")
        _restore_node_affinity(munged, old, old_node)
    return errors


def _restore(munged: dict[str, Any], old: dict[str, Any], key: str) -> None:
    if key in old:
        munged[key] = old[key]
    else:
        munged.pop(key, None)


def _restore_node_affinity(munged: dict[str, Any], old: dict[str, Any], old_node: Any) -> None:
    affinity = munged.get("affinity")
    if not isinstance(affinity, dict):
        if old_node is not None:
            munged["affinity"] = {"nodeAffinity": old_node}
        return
    others = {key: value for key, value in affinity.items() if key != "nodeAffinity"}
    if old.get("affinity") is None and not others:
        munged.pop("affinity")
        return
    munged["affinity"] = {**others, **({"nodeAffinity": old_node} if old_node is not None else {})}
