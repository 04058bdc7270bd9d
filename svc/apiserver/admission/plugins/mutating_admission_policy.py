"""MutatingAdmissionPolicy (the plugin lives in `policy/`; this module is its registry entry)."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.plugins.policy.build import build_mutating_policy
from svc.apiserver.admission.registry import PluginContext


def build(context: PluginContext) -> Any:
    return build_mutating_policy(context.server)
