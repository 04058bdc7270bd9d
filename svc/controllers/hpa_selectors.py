"""Which HPAs select which pods, so pods that two HPAs claim are not scaled by either (upstream's
`hpaSelectors` of `pkg/controller/podautoscaler`).

An HPA is registered when the controller first sees it, with a selector matching nothing until a
reconcile reads its target's selector, and forgotten when it is deleted; only registered HPAs count,
as upstream. Pods are matched with their current labels.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from svc.machinery.labels import LabelSelector


def _namespace(key: str) -> str:
    return key.partition("/")[0]


class HpaSelectors:
    def __init__(self) -> None:
        self._by_namespace: dict[str, dict[str, LabelSelector | None]] = {}

    def register(self, key: str) -> None:
        self._by_namespace.setdefault(_namespace(key), {}).setdefault(key, None)

    def forget(self, key: str) -> None:
        selectors = self._by_namespace.get(_namespace(key))
        if selectors is not None:
            selectors.pop(key, None)
            if not selectors:
                del self._by_namespace[_namespace(key)]

    def update(self, key: str, selector: LabelSelector) -> None:
        """Record the HPA's selector, if it is registered."""
        selectors = self._by_namespace.get(_namespace(key))
        if selectors is not None and key in selectors:
            selectors[key] = selector

    def controlling(self, namespace: str, pods: Iterable[dict[str, Any]]) -> list[str]:
        """The keys (namespace/name, sorted) of the HPAs whose selectors match any of `pods`."""
        selectors = self._by_namespace.get(namespace, {})
        found: set[str] = set()
        for pod in pods:
            labels = pod["metadata"].get("labels") or {}
            found.update(
                key for key, selector in selectors.items() if selector is not None and selector.matches(labels)
            )
        return sorted(found)
