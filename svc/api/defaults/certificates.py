"""PodCertificateRequests (certificates.k8s.io/v1beta1): a request without a lifetime cap asks for a day."""

from __future__ import annotations

from svc.api.defaults.walk import Obj, fill_nil

DEFAULT_MAX_EXPIRATION_SECONDS = 86400


def pod_certificate_request(obj: Obj) -> None:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        fill_nil(spec, "maxExpirationSeconds", DEFAULT_MAX_EXPIRATION_SECONDS)
