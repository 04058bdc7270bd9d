"""PodCertificateRequest (certificates.k8s.io/v1beta1), as upstream's `pkg/apis/certificates/validation`.

A kubelet asks a signer for a pod's certificate: the request names the pod, its service account and
node (names and uids), a lifetime cap (at most a day for the brand's own signers, 91 days for others)
and the key (checked in `pod_certificate_keys`). The spec never changes after create. Through
`/status` a signer moves the request to one terminal condition (Issued, Denied or Failed), after
which the status is frozen; an Issued status carries the chain `pod_certificate_chain` checks.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.brand import Profile
from svc.api.validation.certificates import signer_name_errors
from svc.api.validation.conditions import conditions_errors
from svc.api.validation.engine import Check, Immutable, KindRules, UpdateCheck, integer, lookup, mapping, text
from svc.api.validation.pod_certificate_chain import issued_errors
from svc.api.validation.pod_certificate_keys import key_errors
from svc.machinery.field_errors import OMITTED, FieldError, invalid, not_supported, required, too_long
from svc.machinery.validation import is_dns1123_subdomain, name_is_dns_subdomain, validate_annotations

Obj = dict[str, Any]
MAX_UID_LENGTH: Final = 128
MIN_MAX_EXPIRATION: Final = 3600
MAX_MAX_EXPIRATION: Final = 91 * 86400
BRAND_MAX_MAX_EXPIRATION: Final = 86400
TERMINAL: Final = ("Issued", "Denied", "Failed")


def is_brand_signer(name: str, profile: Profile) -> bool:
    """Upstream's `IsKubernetesSignerName`: the brand's own domain or one of its subdomains."""
    host = name.partition("/")[0]
    return host == profile.label_domain or host.endswith("." + profile.label_domain)


def _uid(obj: Any, path: str) -> list[FieldError]:
    value = text(obj, path)
    if not value:
        return [invalid(path, value, "must not be empty")]
    return [too_long(path, MAX_UID_LENGTH)] if len(value) > MAX_UID_LENGTH else []


def _name(obj: Any, path: str) -> list[FieldError]:
    value = text(obj, path)
    return [invalid(path, value, message) for message in name_is_dns_subdomain(value, False)]


def _user_annotations(obj: Any) -> list[FieldError]:
    path = "spec.unverifiedUserAnnotations"
    if lookup(obj, path) is None:
        return []
    annotations = {key: value for key, value in mapping(obj, path).items() if isinstance(value, str)}
    errors = validate_annotations(annotations, path)
    for key in sorted(annotations):
        prefix, slash, name = key.lower().partition("/")
        if not slash or not name or is_dns1123_subdomain(prefix):
            errors.append(invalid(path, key, 'must be a domain-prefixed key (such as "acme.io/foo")'))
    return errors


def create_rules(profile: Profile) -> Check:
    """Upstream's `ValidatePodCertificateRequestCreate`, in its order (it stops at the first key problem)."""

    def validate(obj: Any, _: str) -> list[FieldError]:
        signer = text(obj, "spec.signerName")
        errors = signer_name_errors(signer, "spec.signerName")
        errors += _user_annotations(obj)
        errors += _name(obj, "spec.podName") + _uid(obj, "spec.podUID")
        errors += _name(obj, "spec.serviceAccountName") + _uid(obj, "spec.serviceAccountUID")
        errors += _name(obj, "spec.nodeName") + _uid(obj, "spec.nodeUID")
        seconds = integer(obj, "spec.maxExpirationSeconds")
        if seconds is None:
            return [*errors, required("spec.maxExpirationSeconds", "must be set")]
        ceiling = BRAND_MAX_MAX_EXPIRATION if is_brand_signer(signer, profile) else MAX_MAX_EXPIRATION
        if not MIN_MAX_EXPIRATION <= seconds <= ceiling:
            detail = f"must be in the range [{MIN_MAX_EXPIRATION}, {ceiling}]"
            errors.append(invalid("spec.maxExpirationSeconds", seconds, detail))
        return errors + key_errors(obj)

    return Check(validate)


# --- status --------------------------------------------------------------------------------------


def _conditions(obj: Obj) -> list[Obj]:
    conditions = (obj.get("status") or {}).get("conditions")
    return [c for c in conditions if isinstance(c, dict)] if isinstance(conditions, list) else []


def _in(obj: Obj, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in _conditions(obj))


def _condition_errors(new: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    known = 0
    for index, condition in enumerate(_conditions(new)):
        path = f"status.conditions[{index}]"
        kind = condition.get("type") or ""
        if kind not in TERMINAL:
            errors.append(not_supported(f"{path}.type", kind, TERMINAL))
            continue
        known += 1
        if known > 1:
            detail = 'There may be at most one condition with type "Issued", "Denied", or "Failed"'
            errors.append(invalid(f"{path}.type", kind, detail))
        if condition.get("status") != "True":
            errors.append(not_supported(f"{path}.status", condition.get("status") or "", ("True",)))
    return errors + conditions_errors((new.get("status") or {}).get("conditions"), "status.conditions")


def _frozen(new: Obj, expected: Any, detail: str) -> list[FieldError]:
    return [] if (new.get("status") or {}) == (expected or {}) else [invalid("status", OMITTED, detail)]


def _status_update(new: Obj, old: Obj, _: str) -> list[FieldError]:
    """Upstream's `ValidatePodCertificateRequestStatusUpdate` (the spec is the stored one by now)."""
    errors = _condition_errors(new)
    if errors:
        return errors
    if any(_in(old, kind) for kind in TERMINAL):
        return _frozen(new, old.get("status"), "immutable after PodCertificateRequest is issued, denied, or failed")
    if _in(new, "Denied") or _in(new, "Failed"):
        only_conditions = {"conditions": (new.get("status") or {}).get("conditions")}
        detail = "non-condition status fields must be empty when denying or failing the PodCertificateRequest"
        return _frozen(new, {k: v for k, v in only_conditions.items() if v}, detail)
    if _in(new, "Issued"):
        return issued_errors(new, old)
    detail = 'status is immutable unless transitioning to "Issued", "Denied", or "Failed"'
    return _frozen(new, old.get("status"), detail)


def rules(profile: Profile) -> KindRules:
    return KindRules(
        create=(create_rules(profile),),
        update=(Immutable("spec", render=lambda _value: OMITTED),),
        revalidate_on_update=False,
        status=(UpdateCheck(_status_update),),
    )
