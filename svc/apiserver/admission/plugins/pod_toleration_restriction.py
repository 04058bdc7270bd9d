"""PodTolerationRestriction: new pods get their namespace's default tolerations (annotation
`scheduler.alpha.kubernetes.io/defaultTolerations`, else the configured `default`), pods that are not
best-effort tolerate memory pressure, and every toleration must be in the namespace's whitelist
(`scheduler.alpha.kubernetes.io/tolerationsWhitelist`, else the configured `whitelist`)."""

from __future__ import annotations

import json
from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.plugins.runtime_class import merge_tolerations
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
DEFAULTS = "scheduler.alpha.kubernetes.io/defaultTolerations"
WHITELIST = "scheduler.alpha.kubernetes.io/tolerationsWhitelist"


def _best_effort(spec: Obj) -> bool:
    for field in ("initContainers", "containers"):
        for container in spec.get(field) or []:
            resources = container.get("resources") or {}
            if any(n in ("cpu", "memory") for kind in ("requests", "limits") for n in resources.get(kind) or {}):
                return False
    return True


def _covered(toleration: Obj, allowed: Obj) -> bool:
    """Whether a whitelist entry covers a toleration (same key, operator, value; any effect when the
    entry names none)."""
    for field, default in (("key", ""), ("operator", "Equal"), ("value", "")):
        if toleration.get(field, default) != allowed.get(field, default):
            return False
    return not allowed.get("effect") or allowed.get("effect") == toleration.get("effect")


class PodTolerationRestriction:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        config = context.configuration or {}
        self._default = config.get("default")
        self._whitelist = config.get("whitelist")
        self._memory_pressure = {
            "key": context.profile.label("node.kubernetes.io/memory-pressure"),
            "operator": "Exists",
            "effect": "NoSchedule",
        }

    async def _annotation(self, attributes: Attributes, key: str) -> list[Obj] | None:
        namespace = await self._context.get("", "namespaces", "", attributes.namespace)
        text = (((namespace or {}).get("metadata") or {}).get("annotations") or {}).get(key)
        if text is None:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            raise forbidden(attributes, f"invalid {key} annotation: {text}") from None
        return value if isinstance(value, list) else None

    def _applies(self, attributes: Attributes) -> bool:
        return is_pod(attributes) and attributes.operation in (Operation.CREATE, Operation.UPDATE)

    async def admit(self, attributes: Attributes) -> None:
        if not self._applies(attributes):
            return
        spec = (attributes.object or {}).setdefault("spec", {})
        extra: list[Obj] = []
        if attributes.operation is Operation.CREATE:
            defaults = await self._annotation(attributes, DEFAULTS)
            extra = list(defaults if defaults is not None else self._default or [])
        if not _best_effort(spec):
            extra.append(dict(self._memory_pressure))
        if extra:
            spec["tolerations"] = merge_tolerations(spec.get("tolerations") or [], extra)

    async def validate(self, attributes: Attributes) -> None:
        if not self._applies(attributes):
            return
        tolerations = ((attributes.object or {}).get("spec") or {}).get("tolerations") or []
        if not tolerations:
            return
        whitelist, scope = await self._annotation(attributes, WHITELIST), "namespace"
        if whitelist is None:
            whitelist, scope = self._whitelist, "cluster"
        if whitelist and not all(any(_covered(t, w) for w in whitelist) for t in tolerations):
            raise forbidden(
                attributes,
                f"pod tolerations (possibly merged with namespace default tolerations) conflict with its {scope} "
                "whitelist",
            )


def build(context: PluginContext) -> PodTolerationRestriction:
    return PodTolerationRestriction(context)
