"""The admission chain: every mutating plugin, then every validating plugin.

A plugin is an object with `admit` and/or `validate` (the one-method protocols of
`svc.registry.admission`); the order of `--enable-admission-plugins` does not matter, the order of
the plugin list here does. A plugin that only looks at some resources says so with a `resources`
attribute (a set of `(upstream group, resource)` pairs); the chain then skips it for the others, so a
ConfigMap write pays only for the plugins that can care about it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from svc.api.resources import Resource
from svc.registry.admission import Attributes

Step = Callable[[Attributes], Awaitable[None]]


class Chain:
    def __init__(self, plugins: Sequence[Any]) -> None:
        self._plugins = list(plugins)
        self._routes: dict[tuple[str, str], tuple[list[Step], list[Step]]] = {}

    def _route(self, resource: Resource) -> tuple[list[Step], list[Step]]:
        key = (resource.upstream_group, resource.name)
        route = self._routes.get(key)
        if route is None:
            chosen = [p for p in self._plugins if getattr(p, "resources", None) is None or key in p.resources]
            route = self._routes[key] = (
                [p.admit for p in chosen if hasattr(p, "admit")],
                [p.validate for p in chosen if hasattr(p, "validate")],
            )
        return route

    async def admit(self, attributes: Attributes) -> None:
        mutating = self._route(attributes.resource)[0]
        for admit in mutating:
            await admit(attributes)
        reinvocation = attributes.reinvocation
        if reinvocation.should_reinvoke and not reinvocation.is_reinvoke:
            # Upstream's reinvoker: a webhook changed the object, so the chain runs once more; the
            # in-tree plugins are idempotent, webhooks with reinvocationPolicy IfNeeded run again.
            reinvocation.is_reinvoke = True
            for admit in mutating:
                await admit(attributes)

    async def validate(self, attributes: Attributes) -> None:
        for validate in self._route(attributes.resource)[1]:
            await validate(attributes)
