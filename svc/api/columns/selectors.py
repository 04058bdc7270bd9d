"""Label maps and label selectors written the way upstream prints them in table cells.

`k=v` pairs sorted by key; a selector's requirements sorted by key, `in`/`notin` values sorted.
"""

from __future__ import annotations

from typing import Any

NONE = "<none>"

_SET_OPERATORS = {"In": "in", "NotIn": "notin"}


def labels_string(labels: Any) -> str:
    """`labels.Set.String()`: empty for no labels."""
    if not isinstance(labels, dict):
        return ""
    return ",".join(f"{key}={labels[key]}" for key in sorted(labels))


def format_labels(labels: Any) -> str:
    """`labels.FormatLabels`: `<none>` when there are no labels."""
    return labels_string(labels) or NONE


def selector_string(selector: Any) -> str | None:
    """`LabelSelectorAsSelector(...).String()`, or None when the selector is not valid."""
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, dict):
        return None
    requirements.extend((key, f"{key}={value}") for key, value in match_labels.items())
    for expression in selector.get("matchExpressions") or ():
        written = _requirement(expression)
        if written is None:
            return None
        requirements.append((expression["key"], written))
    requirements.sort(key=lambda requirement: requirement[0])
    return ",".join(written for _, written in requirements)


def format_selector(selector: Any) -> str:
    """`metav1.FormatLabelSelector`: `<none>` for an empty selector, `<error>` for an invalid one."""
    written = selector_string(selector)
    if written is None:
        return "<error>"
    return written or NONE


def _requirement(expression: Any) -> str | None:
    if not isinstance(expression, dict) or not isinstance(expression.get("key"), str):
        return None
    key, operator, values = expression["key"], expression.get("operator"), expression.get("values") or []
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        return None
    if operator in _SET_OPERATORS:
        if not values:
            return None
        return f"{key} {_SET_OPERATORS[operator]} ({','.join(sorted(values))})"
    if operator in ("Exists", "DoesNotExist"):
        if values:
            return None
        return key if operator == "Exists" else f"!{key}"
    return None


def selector_struct_string(selector: dict[str, Any]) -> str:
    """The selector as the Go struct's generated `String()` prints it (a few upstream cells show that
    rather than the selector syntax): `&LabelSelector{MatchLabels:map[string]string{k: v,},...}`."""
    labels = selector.get("matchLabels") if isinstance(selector.get("matchLabels"), dict) else {}
    written_labels = "".join(f"{key}: {labels[key]}," for key in sorted(labels))
    expressions = selector.get("matchExpressions") if isinstance(selector.get("matchExpressions"), list) else []
    written_expressions = "".join(
        f"LabelSelectorRequirement{{Key:{_go_value(e, 'key')},Operator:{_go_value(e, 'operator')},"
        f"Values:[{' '.join(str(v) for v in (e.get('values') or []))}],}},"
        for e in expressions
        if isinstance(e, dict)
    )
    return (
        f"&LabelSelector{{MatchLabels:map[string]string{{{written_labels}}},"
        f"MatchExpressions:[]LabelSelectorRequirement{{{written_expressions}}},}}"
    )


def _go_value(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""
