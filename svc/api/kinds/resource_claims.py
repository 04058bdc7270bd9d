"""ResourceClaim: a write through `/status` is checked as upstream's `ValidateResourceClaimStatusUpdate`
(consumers, reported devices, an allocation set once); the main resource's rules only compare specs."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy, status_only
from svc.api.validation.dra_claims import claim_status_errors
from svc.machinery import status
from svc.machinery.field_errors import aggregate_message

Obj = dict[str, Any]


def strategy(base: Strategy) -> Strategy:
    group_kind = base.resource.group_kind

    def status_update(new: Obj, old: Obj) -> Obj:
        result = status_only(new, old)
        errors = claim_status_errors(result, old)
        if errors:
            name = old["metadata"].get("name", "")
            raise status.invalid(group_kind, name, errors, aggregate_message(errors))
        return result

    return dataclasses.replace(base, extra_subresource_updates={"status": status_update})
