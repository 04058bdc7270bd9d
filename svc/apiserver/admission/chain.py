"""The admission chain: every mutating plugin, then every validating plugin.

A plugin is an object with `admit` and/or `validate` (the one-method protocols of
`svc.registry.admission`); the order of `--enable-admission-plugins` does not matter, the order of
the plugin list here does. A plugin that only looks at some resources says so with a `resources`
attribute (a set of `(upstream group, resource)` pairs); the chain then skips it for the others, so a
ConfigMap write pays only for the plugins that can care about it.

With metrics, each phase is timed (`apiserver_admission_step_admission_duration_seconds`) and so is
each plugin given with its upstream name (`NamedPlugin`; `..._controller_admission_duration_seconds`),
rejected or not.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from svc.api.resources import Resource
from svc.apiserver.admission.metrics import AdmissionMetrics
from svc.registry.admission import Attributes

Step = Callable[[Attributes], Awaitable[None]]
ADMIT, VALIDATE = "admit", "validate"


@dataclass(frozen=True)
class NamedPlugin:
    """A plugin with the upstream name its metrics carry."""

    name: str
    plugin: Any


class Chain:
    def __init__(self, plugins: Sequence[Any], metrics: AdmissionMetrics | None = None) -> None:
        self._plugins = [(p.name, p.plugin) if isinstance(p, NamedPlugin) else ("", p) for p in plugins]
        self._metrics = metrics
        self._routes: dict[tuple[str, str], tuple[list[Step], list[Step]]] = {}

    def _route(self, resource: Resource) -> tuple[list[Step], list[Step]]:
        key = (resource.upstream_group, resource.name)
        route = self._routes.get(key)
        if route is None:
            chosen = [
                (name, p) for name, p in self._plugins if getattr(p, "resources", None) is None or key in p.resources
            ]
            route = self._routes[key] = (
                [self._measured(name, ADMIT, p.admit) for name, p in chosen if hasattr(p, "admit")],
                [self._measured(name, VALIDATE, p.validate) for name, p in chosen if hasattr(p, "validate")],
            )
        return route

    def _measured(self, name: str, kind: str, step: Step) -> Step:
        metrics = self._metrics
        if metrics is None or not name:
            return step

        async def measured(attributes: Attributes) -> None:
            started = time.perf_counter()
            rejected = True
            try:
                await step(attributes)
                rejected = False
            finally:
                metrics.controller(name, kind, attributes.operation, rejected, time.perf_counter() - started)

        return measured

    async def admit(self, attributes: Attributes) -> None:
        started = time.perf_counter()
        rejected = True
        try:
            await self._admit(attributes)
            rejected = False
        finally:
            if self._metrics is not None:
                self._metrics.step(ADMIT, attributes.operation, rejected, time.perf_counter() - started)

    async def _admit(self, attributes: Attributes) -> None:
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
        started = time.perf_counter()
        rejected = True
        try:
            for validate in self._route(attributes.resource)[1]:
                await validate(attributes)
            rejected = False
        finally:
            if self._metrics is not None:
                self._metrics.step(VALIDATE, attributes.operation, rejected, time.perf_counter() - started)
