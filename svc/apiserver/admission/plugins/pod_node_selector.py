"""PodNodeSelector: a namespace's node selector (its `scheduler.alpha.kubernetes.io/node-selector`
annotation, else the configured cluster default) is merged into its pods' node selectors; a pod may not
contradict it, nor leave the namespace's whitelist from the plugin configuration
(`podNodeSelectorPluginConfig`: `clusterDefaultNodeSelector` and one selector per namespace)."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import is_pod
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
ANNOTATION = "scheduler.alpha.kubernetes.io/node-selector"


def parse_selector(text: str) -> dict[str, str]:
    """`a=b,c=d` as a map (upstream's ConvertSelectorToLabelsMap); ValueError when malformed."""
    result: dict[str, str] = {}
    for part in filter(None, (item.strip() for item in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"invalid selector: {text}")
        result[key.strip()] = value.strip().removeprefix("=")
    return result


def _conflicts(first: dict[str, str], second: dict[str, str]) -> bool:
    return any(key in second and second[key] != value for key, value in first.items())


class PodNodeSelector:
    resources = frozenset({("", "pods")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context
        config = (context.configuration or {}).get("podNodeSelectorPluginConfig") or {}
        try:
            self._selectors = {name: parse_selector(str(text)) for name, text in config.items()}
        except ValueError as error:
            raise ValueError(f"PodNodeSelector: {error}") from None

    async def _namespace_selector(self, attributes: Attributes) -> dict[str, str]:
        namespace = await self._context.get("", "namespaces", "", attributes.namespace)
        annotations = ((namespace or {}).get("metadata") or {}).get("annotations") or {}
        if ANNOTATION in annotations:
            try:
                return parse_selector(annotations[ANNOTATION])
            except ValueError as error:
                raise forbidden(attributes, str(error)) from None
        return self._selectors.get("clusterDefaultNodeSelector", {})

    def _applies(self, attributes: Attributes) -> bool:
        return is_pod(attributes) and attributes.operation is Operation.CREATE

    async def admit(self, attributes: Attributes) -> None:
        if not self._applies(attributes):
            return
        spec = (attributes.object or {}).setdefault("spec", {})
        selector = await self._namespace_selector(attributes)
        own = spec.get("nodeSelector") or {}
        if _conflicts(selector, own):
            raise forbidden(attributes, "pod node label selector conflicts with its namespace node label selector")
        if selector:
            spec["nodeSelector"] = {**selector, **own}

    async def validate(self, attributes: Attributes) -> None:
        if not self._applies(attributes):
            return
        own = ((attributes.object or {}).get("spec") or {}).get("nodeSelector") or {}
        if _conflicts(await self._namespace_selector(attributes), own):
            raise forbidden(attributes, "pod node label selector conflicts with its namespace node label selector")
        whitelist = self._selectors.get(attributes.namespace, {})
        if whitelist and any(whitelist.get(key) != value for key, value in own.items()):
            raise forbidden(attributes, "pod node label selector labels conflict with its namespace whitelist")


def build(context: PluginContext) -> PodNodeSelector:
    return PodNodeSelector(context)
