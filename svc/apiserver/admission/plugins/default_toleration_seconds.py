"""DefaultTolerationSeconds: pods tolerate the not-ready and unreachable node taints (NoExecute) for a
while (`--default-not-ready-toleration-seconds`, `--default-unreachable-toleration-seconds`, 300 by
default) unless they already tolerate them."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]


def _tolerates(tolerations: list[Obj], key: str) -> bool:
    return any(t.get("key", "") in (key, "") and t.get("effect", "") in ("NoExecute", "") for t in tolerations)


class DefaultTolerationSeconds:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext, not_ready_seconds: int, unreachable_seconds: int) -> None:
        label = context.profile.label
        self._defaults = (
            (label("node.kubernetes.io/not-ready"), not_ready_seconds),
            (label("node.kubernetes.io/unreachable"), unreachable_seconds),
        )

    async def admit(self, attributes: Attributes) -> None:
        if not is_pod(attributes) or attributes.operation not in (Operation.CREATE, Operation.UPDATE):
            return
        spec = (attributes.object or {}).setdefault("spec", {})
        tolerations = list(spec.get("tolerations") or [])
        added = [
            {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
            for key, seconds in self._defaults
            if not _tolerates(tolerations, key)
        ]
        if added:
            spec["tolerations"] = tolerations + added


def build(context: PluginContext) -> DefaultTolerationSeconds:
    options = context.server.options.admission
    return DefaultTolerationSeconds(
        context, options.default_not_ready_toleration_seconds, options.default_unreachable_toleration_seconds
    )
