"""The admission chain: every mutating plugin, then every validating plugin.

A plugin is an object with `admit` and/or `validate` (the one-method protocols of
`svc.registry.admission`); the order of `--enable-admission-plugins` does not matter, the order of
the plugin list here does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from svc.registry.admission import Attributes


class Chain:
    def __init__(self, plugins: Sequence[Any]) -> None:
        self._mutating = [plugin.admit for plugin in plugins if hasattr(plugin, "admit")]
        self._validating = [plugin.validate for plugin in plugins if hasattr(plugin, "validate")]

    async def admit(self, attributes: Attributes) -> None:
        for admit in self._mutating:
            await admit(attributes)
        reinvocation = attributes.reinvocation
        if reinvocation.should_reinvoke and not reinvocation.is_reinvoke:
            # Upstream's reinvoker: a webhook changed the object, so the chain runs once more; the
            # in-tree plugins are idempotent, webhooks with reinvocationPolicy IfNeeded run again.
            reinvocation.is_reinvoke = True
            for admit in self._mutating:
                await admit(attributes)

    async def validate(self, attributes: Attributes) -> None:
        for validate in self._validating:
            await validate(attributes)
