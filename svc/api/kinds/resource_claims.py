"""ResourceClaim: a write through `/status` is checked as upstream's `ValidateResourceClaimStatusUpdate`
(consumers, reported devices, an allocation set once); the main resource's rules only compare specs."""

from __future__ import annotations

import dataclasses

from svc.api.strategy import Strategy
from svc.api.validation.dra_claims import claim_status_errors


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, subresource_validators={"status": claim_status_errors})
