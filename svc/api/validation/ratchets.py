"""Invalid values an update may keep because the stored object already holds them.

Upstream tightened several pod checks after objects that fail them were stored; to keep such objects
writable it derives validation options from the old object (`GetValidationOptionsFromPodSpecAndMeta`):
when the old pod (or pod template) already has an invalid value of a kind, the update may have them
too. Each class here is one of those options, recognised by the path and text of its errors.
"""

from __future__ import annotations

from typing import Final

from svc.api.validation.engine import Ratchet
from svc.api.validation.pod_annotations import DELETION_COST
from svc.machinery.field_errors import ErrorType, FieldError
from svc.machinery.validation import is_valid_label_value


def _invalid_label_value(error: FieldError) -> bool:
    return (
        error.type is ErrorType.INVALID
        and isinstance(error.bad_value, str)
        and error.detail in is_valid_label_value(error.bad_value)
    )


def _label_value_within(*fragments: str) -> Ratchet:
    def matches(error: FieldError) -> bool:
        return any(fragment in error.field for fragment in fragments) and _invalid_label_value(error)

    return matches


def _deletion_cost(error: FieldError) -> bool:
    return error.field.endswith(f"annotations[{DELETION_COST}]")


POD_RATCHETS: Final[tuple[Ratchet, ...]] = (
    _deletion_cost,
    # AllowInvalidLabelValueInSelector: pod (anti-)affinity term selectors.
    _label_value_within(".podAffinity.", ".podAntiAffinity."),
    # AllowInvalidTopologySpreadConstraintLabelSelector.
    _label_value_within(".topologySpreadConstraints["),
    # AllowInvalidLabelValueInRequiredNodeAffinity.
    _label_value_within(".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms["),
)


def _ingress_secret_name(error: FieldError) -> bool:
    return error.field.startswith("spec.tls[") and error.field.endswith(".secretName")


INGRESS_RATCHETS: Final[tuple[Ratchet, ...]] = (
    # AllowInvalidSecretName: a TLS secret name that is not a DNS subdomain.
    _ingress_secret_name,
)
