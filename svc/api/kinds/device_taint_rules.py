"""DeviceTaintRule: a write through `/status` is checked as upstream's
`ValidateDeviceTaintRuleStatusUpdate` (at most 8 conditions, each a valid `metav1.Condition`)."""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from svc.api.status_metadata import kept_for
from svc.api.strategy import Strategy, status_only
from svc.api.validation.conditions import conditions_errors
from svc.api.validation.engine import items, lookup
from svc.machinery import status
from svc.machinery.field_errors import aggregate_message, too_many

Obj = dict[str, Any]
MAX_CONDITIONS: Final = 8


def status_errors(rule: Obj) -> list[Any]:
    conditions = lookup(rule, "status.conditions")
    errors = conditions_errors(conditions, "status.conditions")
    if len(items(conditions)) > MAX_CONDITIONS:
        errors.append(too_many("status.conditions", len(items(conditions)), MAX_CONDITIONS))
    return errors


def strategy(base: Strategy) -> Strategy:
    group_kind = base.resource.group_kind
    kept = kept_for(base.resource.upstream_group, base.resource.kind)

    def status_update(new: Obj, old: Obj) -> Obj:
        result = status_only(new, old, kept)
        errors = status_errors(result)
        if errors:
            raise status.invalid(group_kind, old["metadata"].get("name", ""), errors, aggregate_message(errors))
        return result

    return dataclasses.replace(base, extra_subresource_updates={"status": status_update})
