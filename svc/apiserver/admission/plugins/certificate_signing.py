"""CertificateSigning: setting or changing a CSR's issued certificate (its `status` subresource)
needs the `sign` verb on the CSR's signer."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.apiserver.admission.signers import GROUP, may_use_signer
from svc.registry.admission import Attributes


class CertificateSigning:
    resources = frozenset({(GROUP, "certificatesigningrequests")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def validate(self, attributes: Attributes) -> None:
        if not targets(attributes, GROUP, "certificatesigningrequests", ("status",)):
            return
        new = ((attributes.object or {}).get("status") or {}).get("certificate")
        old = ((attributes.old_object or {}).get("status") or {}).get("certificate")
        if new == old:
            return
        signer = ((attributes.object or {}).get("spec") or {}).get("signerName", "")
        if not await may_use_signer(self._context, attributes.user, "sign", signer):
            raise forbidden(attributes, f'user not permitted to sign requests with signerName "{signer}"')


def build(context: PluginContext) -> CertificateSigning:
    return CertificateSigning(context)
