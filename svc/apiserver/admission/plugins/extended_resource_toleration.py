"""ExtendedResourceToleration: a pod requesting an extended resource (a GPU, say) tolerates the
NoSchedule taint named after it, so nodes with such devices can keep other pods away."""

from __future__ import annotations

from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.plugins.runtime_class import merge_tolerations
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation


def is_extended(name: str) -> bool:
    """Upstream's IsExtendedResourceName: a domain-qualified name outside kubernetes.io, not a quota
    prefix."""
    domain, sep, _ = name.partition("/")
    return (
        bool(sep)
        and not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))
        and not name.startswith("requests.")
    )


class ExtendedResourceToleration:
    resources = frozenset({("", "pods")})

    async def admit(self, attributes: Attributes) -> None:
        if not is_pod(attributes) or attributes.operation not in (Operation.CREATE, Operation.UPDATE):
            return
        spec = (attributes.object or {}).setdefault("spec", {})
        names: set[str] = set()
        for field in ("initContainers", "containers"):
            for container in spec.get(field) or []:
                resources = container.get("resources") or {}
                names.update(n for n in (resources.get("requests") or {}) if is_extended(n))
                names.update(n for n in (resources.get("limits") or {}) if is_extended(n))
        if names:
            added = [{"key": name, "operator": "Exists", "effect": "NoSchedule"} for name in sorted(names)]
            spec["tolerations"] = merge_tolerations(spec.get("tolerations") or [], added)


def build(context: PluginContext) -> ExtendedResourceToleration:
    return ExtendedResourceToleration()
