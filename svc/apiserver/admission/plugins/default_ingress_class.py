"""DefaultIngressClass: a new Ingress that names no class (field or legacy annotation) gets the default
IngressClass."""

from __future__ import annotations

from svc.apiserver.admission.defaults import default_class
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

GROUP = "networking.k8s.io"


class DefaultIngressClass:
    resources = frozenset({(GROUP, "ingresses")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        self._marker = context.profile.label("ingressclass.kubernetes.io/is-default-class")
        self._legacy = context.profile.label("kubernetes.io/ingress.class")

    async def admit(self, attributes: Attributes) -> None:
        ingress = attributes.object
        if attributes.operation is not Operation.CREATE or not isinstance(ingress, dict):
            return
        if not targets(attributes, GROUP, "ingresses"):
            return
        spec = ingress.setdefault("spec", {})
        if spec.get("ingressClassName") is not None:
            return
        if self._legacy in ((ingress.get("metadata") or {}).get("annotations") or {}):
            return
        chosen = default_class(self._context.list(GROUP, "ingressclasses"), (self._marker,))
        if chosen is not None:
            spec["ingressClassName"] = chosen["metadata"]["name"]


def build(context: PluginContext) -> DefaultIngressClass:
    return DefaultIngressClass(context)
