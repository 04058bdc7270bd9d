"""Services: DNS-label names (upstream's relaxed service name validation, on by default since 1.34)."""

from __future__ import annotations

import dataclasses

from svc.api.strategy import Strategy
from svc.machinery.validation import name_is_dns_label


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, name_validator=name_is_dns_label)
