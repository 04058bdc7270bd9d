"""DenyServiceExternalIPs: no new external IPs on services (existing ones may stay)."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.registry.admission import Attributes, Operation


class DenyServiceExternalIPs:
    resources = frozenset({("", "services")})

    async def validate(self, attributes: Attributes) -> None:
        service = attributes.object
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE) or not isinstance(service, dict):
            return
        if not targets(attributes, "", "services"):
            return
        addresses = set((service.get("spec") or {}).get("externalIPs") or [])
        if not addresses:
            return
        old = set(((attributes.old_object or {}).get("spec") or {}).get("externalIPs") or [])
        if attributes.operation is Operation.UPDATE and addresses <= old:
            return
        raise forbidden(attributes, "Use of external IPs is denied by admission control")


def build(context: PluginContext) -> DenyServiceExternalIPs:
    return DenyServiceExternalIPs()
