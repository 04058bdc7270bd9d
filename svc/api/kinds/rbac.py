"""RBAC roles and bindings: names are path segments (upstream allows `:` in them, e.g. `system:foo`)."""

from __future__ import annotations

import dataclasses

from svc.api.strategy import Strategy
from svc.machinery.validation import name_is_path_segment


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, name_validator=name_is_path_segment)
