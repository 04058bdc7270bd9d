"""CertificateApproval: approving or denying a CSR (its `approval` subresource) needs the `approve`
verb on the CSR's signer."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.apiserver.admission.signers import GROUP, may_use_signer
from svc.registry.admission import Attributes


class CertificateApproval:
    resources = frozenset({(GROUP, "certificatesigningrequests")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def validate(self, attributes: Attributes) -> None:
        if not targets(attributes, GROUP, "certificatesigningrequests", ("approval",)):
            return
        signer = ((attributes.object or {}).get("spec") or {}).get("signerName", "")
        if not await may_use_signer(self._context, attributes.user, "approve", signer):
            raise forbidden(attributes, f'user not permitted to approve requests with signerName "{signer}"')


def build(context: PluginContext) -> CertificateApproval:
    return CertificateApproval(context)
