"""AlwaysAdmit: admits everything (deprecated upstream, kept for its name)."""

from __future__ import annotations

from svc.apiserver.admission.registry import PluginContext


class AlwaysAdmit:
    async def validate(self, attributes: object) -> None:
        return None


def build(context: PluginContext) -> AlwaysAdmit:
    return AlwaysAdmit()
