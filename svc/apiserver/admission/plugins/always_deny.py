"""AlwaysDeny: rejects every write (deprecated upstream, kept for testing)."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes


class AlwaysDeny:
    async def admit(self, attributes: Attributes) -> None:
        raise forbidden(attributes, "admission control is denying all modifications")

    async def validate(self, attributes: Attributes) -> None:
        raise forbidden(attributes, "admission control is denying all modifications")


def build(context: PluginContext) -> AlwaysDeny:
    return AlwaysDeny()
