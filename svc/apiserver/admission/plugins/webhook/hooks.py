"""The webhooks of the current configurations, followed live from their watch cache.

Upstream's plugins read configurations from an informer and rebuild their accessors when it
changes. Here the watch cache of `mutatingwebhookconfigurations` (or `validating...`) is the
informer: its shared snapshot object is replaced on every change, so comparing that object's
identity tells whether the compiled hooks are stale, at the cost of one `is` per request. A
configuration written a moment ago is therefore in effect for the very next request.
Configurations are ordered by name and their webhooks as listed, as upstream orders them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from svc.apiserver.admission.matching import MatchCriteria
from svc.apiserver.admission.plugins.webhook.conditions import Conditions
from svc.apiserver.webhook_client import ClientConfig
from svc.registry.options import ListOptions
from svc.registry.store import GenericStore
from svc.storage.backend import prefix_end

DEFAULT_TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class Hook:
    """One webhook of one configuration, parsed once."""

    uid: str
    """Configuration name and position: reinvocation tracks webhooks by it."""
    name: str
    configuration: str
    criteria: MatchCriteria
    conditions: Conditions
    client: ClientConfig
    failure_policy: str
    side_effects: str | None
    timeout: float
    review_versions: tuple[str, ...]
    reinvocation_policy: str

    @property
    def ignores_failures(self) -> bool:
        return self.failure_policy == "Ignore"


def hooks_of(configuration: Mapping[str, Any]) -> list[Hook]:
    """The webhooks of one configuration object (already defaulted by the API)."""
    config_name = (configuration.get("metadata") or {}).get("name", "")
    hooks = []
    for index, webhook in enumerate(configuration.get("webhooks") or ()):
        failure_policy = webhook.get("failurePolicy") or "Fail"
        hooks.append(
            Hook(
                uid=f"{config_name}/{webhook.get('name', '')}/{index}",
                name=webhook.get("name", ""),
                configuration=config_name,
                criteria=MatchCriteria.from_webhook(webhook),
                conditions=Conditions(webhook.get("matchConditions") or (), ignore=failure_policy == "Ignore"),
                client=ClientConfig.from_api(webhook.get("clientConfig") or {}),
                failure_policy=failure_policy,
                side_effects=webhook.get("sideEffects"),
                timeout=float(webhook.get("timeoutSeconds") or DEFAULT_TIMEOUT_SECONDS),
                review_versions=tuple(webhook.get("admissionReviewVersions") or ("v1beta1",)),
                reinvocation_policy=webhook.get("reinvocationPolicy") or "Never",
            )
        )
    return hooks


class HookSource:
    """The hooks of every configuration of one kind; `store` is looked up when first needed
    (stores exist once the server has opened its storage)."""

    def __init__(self, store: Callable[[], GenericStore]) -> None:
        self._store = store
        self._seen: object = None
        self._hooks: list[Hook] = []

    async def hooks(self) -> list[Hook]:
        store = self._store()
        cache = store.cache
        if cache is None:  # no watch cache: read storage every time (correct, slower)
            listed = await store.list("", ListOptions())
            return [hook for item in listed["items"] for hook in hooks_of(item)]
        prefix = store.prefix("")
        snapshot, span = cache.shared_snapshot(prefix, prefix_end(prefix))
        if snapshot is not self._seen:
            objects = snapshot.objects[span.start : span.stop]
            self._hooks = [hook for cached in objects for hook in hooks_of(cached.decode())]
            self._seen = snapshot
        return self._hooks
