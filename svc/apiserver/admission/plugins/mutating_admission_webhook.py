"""MutatingAdmissionWebhook (the plugin lives in `webhook/`; this module is its registry entry)."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.plugins.webhook.build import webhooks_for
from svc.apiserver.admission.registry import PluginContext


def build(context: PluginContext) -> Any:
    async def get_namespace(name: str) -> dict[str, Any] | None:
        return await context.get("", "namespaces", "", name)

    return webhooks_for(context.server, get_namespace=get_namespace).mutating
