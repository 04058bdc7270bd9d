"""Invalid values an update may keep because the stored object already holds them.

Upstream tightened several checks after objects that fail them were stored; to keep such objects
writable it derives validation options from the old object (`GetValidationOptionsFromPodSpecAndMeta`,
the Ingress strategy's options): when the old object already has an invalid value of a kind, the
update may have them too. Each predicate here is one of those options, recognising its errors by
path and text (and, where the option depends on it, by the object they were found in).
"""

from __future__ import annotations

import re
from typing import Any, Final

from svc.api.validation.engine import Obj, Ratchet, lookup
from svc.api.validation.pod_annotations import DELETION_COST
from svc.api.validation.volume_files import LOCAL_PATH_DETAILS
from svc.machinery.field_errors import ErrorType, FieldError
from svc.machinery.validation import is_valid_label_value


def _invalid_label_value(error: FieldError) -> bool:
    return (
        error.type is ErrorType.INVALID
        and isinstance(error.bad_value, str)
        and error.detail in is_valid_label_value(error.bad_value)
    )


def _label_value_within(*fragments: str) -> Ratchet:
    def matches(error: FieldError, _obj: Obj) -> bool:
        return any(fragment in error.field for fragment in fragments) and _invalid_label_value(error)

    return matches


def _deletion_cost(error: FieldError, _obj: Obj) -> bool:
    return error.field.endswith(f"annotations[{DELETION_COST}]")


def _indivisible_hugepages(error: FieldError, _obj: Obj) -> bool:
    """AllowIndivisibleHugePagesValues: a hugepage amount that is not a whole number of pages."""
    return error.type is ErrorType.INVALID and error.detail.endswith(
        f" is not positive integer multiple of {error.field.rsplit('[', 1)[-1].rstrip(']')}"
    )


_HOST_NAMESPACE_SYSCTL: Final = (
    "may not be specified when 'hostNetwork' is true",
    "may not be specified when 'hostIPC' is true",
)


def _host_namespace_sysctl(error: FieldError, _obj: Obj) -> bool:
    """AllowNamespacedSysctlsForHostNetAndHostIPC: a namespaced sysctl next to the host's namespace."""
    return ".securityContext.sysctls[" in error.field and error.detail in _HOST_NAMESPACE_SYSCTL


def _non_local_token_path(error: FieldError, _obj: Obj) -> bool:
    """AllowNonLocalProjectedTokenPath: a service account token projected outside the volume (upstream
    reports it at the projection's `path`, the only error there)."""
    return error.field.endswith(".projected.path") and error.detail in LOCAL_PATH_DETAILS


POD_RATCHETS: Final[tuple[Ratchet, ...]] = (
    _deletion_cost,
    # AllowInvalidLabelValueInSelector: pod (anti-)affinity term selectors.
    _label_value_within(".podAffinity.", ".podAntiAffinity."),
    # AllowInvalidTopologySpreadConstraintLabelSelector.
    _label_value_within(".topologySpreadConstraints["),
    # AllowInvalidLabelValueInRequiredNodeAffinity.
    _label_value_within(".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms["),
    _indivisible_hugepages,
    _host_namespace_sysctl,
    _non_local_token_path,
)


def _ingress_secret_name(error: FieldError, _obj: Obj) -> bool:
    return error.field.startswith("spec.tls[") and error.field.endswith(".secretName")


_RULE_VALUE: Final = re.compile(r"spec\.rules\[(\d+)\]\.http")


def _wildcard_host_rule(error: FieldError, obj: Obj) -> bool:
    """AllowInvalidWildcardHostRule: errors in the paths of a rule whose host is a wildcard."""
    match = _RULE_VALUE.match(error.field)
    if match is None:
        return False
    rules: Any = lookup(obj, "spec.rules")
    index = int(match.group(1))
    return isinstance(rules, list) and index < len(rules) and "*" in str(lookup(rules[index], "host") or "")


INGRESS_RATCHETS: Final[tuple[Ratchet, ...]] = (
    # AllowInvalidSecretName: a TLS secret name that is not a DNS subdomain.
    _ingress_secret_name,
    _wildcard_host_rule,
)
