"""CertificateSigningRequest columns (signer, requestor, requested duration and the condition summary) and
ClusterTrustBundle columns (the signer)."""

from __future__ import annotations

from datetime import timedelta

from svc.api.columns import descriptions
from svc.api.columns.common import age_column, field, items, name_column, text
from svc.api.columns.timing import human_duration
from svc.wire.views import Column, Obj


def _requested_duration(csr: Obj) -> str:
    seconds = field(csr, "spec", "expirationSeconds")
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        return "<none>"
    return human_duration(timedelta(seconds=seconds))


def condition_summary(csr: Obj) -> str:
    """Denied beats Approved, else Pending; then Failed and Issued, as upstream's printer writes it."""
    kinds = {condition.get("type") for condition in items(csr, "status", "conditions") if isinstance(condition, dict)}
    summary = "Denied" if "Denied" in kinds else "Approved" if "Approved" in kinds else "Pending"
    if "Failed" in kinds:
        summary += ",Failed"
    if text(csr, "status", "certificate"):
        summary += ",Issued"
    return summary


CERTIFICATE_SIGNING_REQUEST = (
    name_column(),
    age_column(),
    Column(
        "SignerName",
        "string",
        lambda csr: text(csr, "spec", "signerName") or "<none>",
        description=descriptions.CSR_SIGNER_NAME,
    ),
    Column("Requestor", "string", lambda csr: text(csr, "spec", "username"), description=descriptions.CSR_REQUEST),
    Column("RequestedDuration", "string", _requested_duration, description=descriptions.CSR_EXPIRATION_SECONDS),
    Column("Condition", "string", condition_summary, description=descriptions.CSR_CONDITIONS),
)

CLUSTER_TRUST_BUNDLE = (
    name_column(),
    Column(
        "SignerName",
        "string",
        lambda bundle: text(bundle, "spec", "signerName") or "<none>",
        description=descriptions.CLUSTER_TRUST_BUNDLE_SIGNER_NAME,
    ),
)
