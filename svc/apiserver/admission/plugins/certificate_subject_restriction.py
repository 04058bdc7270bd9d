"""CertificateSubjectRestriction: no CSR for the API server client signer may ask for the
`system:masters` group, which would bypass authorization."""

from __future__ import annotations

import base64
import binascii

from cryptography import x509
from cryptography.x509.oid import NameOID

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.apiserver.admission.signers import GROUP
from svc.registry.admission import Attributes, Operation

MASTERS = "system:masters"


def _organizations(request: str) -> list[str]:
    """The subject organizations of a base64 PEM request; none when it does not parse (validation
    rejects those)."""
    try:
        parsed = x509.load_pem_x509_csr(base64.b64decode(request))
    except (ValueError, binascii.Error):
        return []
    return [str(a.value) for a in parsed.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]


class CertificateSubjectRestriction:
    resources = frozenset({(GROUP, "certificatesigningrequests")})

    def __init__(self, context: PluginContext) -> None:
        self._signers = {
            "kubernetes.io/kube-apiserver-client",
            context.profile.label("kubernetes.io/") + context.profile.apiserver_name + "-client",
        }

    async def validate(self, attributes: Attributes) -> None:
        if attributes.operation is not Operation.CREATE or not isinstance(attributes.object, dict):
            return
        if not targets(attributes, GROUP, "certificatesigningrequests"):
            return
        spec = attributes.object.get("spec") or {}
        signer = spec.get("signerName", "")
        if signer in self._signers and MASTERS in _organizations(spec.get("request", "")):
            raise forbidden(attributes, f"use of {signer} signer with {MASTERS} group is not allowed")


def build(context: PluginContext) -> CertificateSubjectRestriction:
    return CertificateSubjectRestriction(context)
