"""Per-kind validation of the built-in types, as upstream's `pkg/apis/<group>/validation` (release 1.36).

`rules_for` gives a kind's `KindRules` (or None for kinds checked only by the generic metadata rules);
the strategy module wires them into a kind's `validate` and `validate_update`.
"""

from __future__ import annotations

from svc.api.validation import core, pods, workloads
from svc.api.validation.engine import KindRules

_RULES: dict[tuple[str, str], KindRules] = {
    ("", "Pod"): pods.POD,
    ("", "PodTemplate"): pods.POD_TEMPLATE,
    **core.RULES,
    **workloads.RULES,
}


def rules_for(group: str, kind: str, *, standard_finalizers: frozenset[str] = frozenset()) -> KindRules | None:
    """The rules of a built-in kind; namespaces need the finalizer names that need no domain."""
    if (group, kind) == ("", "Namespace"):
        return core.namespace_rules(standard_finalizers)
    return _RULES.get((group, kind))
