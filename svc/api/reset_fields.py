"""The fields each kind's strategy resets, per subresource (upstream's `GetResetFields`).

A write through the main resource of a kind with a status subresource cannot change `status`, and a
write through `/status` cannot change `spec` (nor, for some kinds, metadata): the strategy copies them
back from the stored object. The field manager must agree, or an apply to `/status` that carries
`spec` would claim fields it never set. Upstream declares the set per strategy; most kinds follow the
generic rule below and only the exceptions are listed.

A few subresources instead let a write change only some fields (upstream's `GetResetFieldsFilter` with
an include matcher): `pods/ephemeralcontainers` only the ephemeral containers, `pods/resize` only the
containers' resources and resize policies. Those are listed as `KeepOnly` patterns, `*` standing for
any one step (every item of a list).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from svc.api.resources import Resource

Paths = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class KeepOnly:
    """A subresource through which only the fields matched by `patterns` (and those below them) change."""

    patterns: Paths


Reset = Paths | KeepOnly

_STATUS: Final[Paths] = (("status",),)
_SPEC: Final[Paths] = (("spec",),)
# Status strategies that also reset the object's metadata (`metav1.ResetObjectMetaForStatus`, or
# keeping the stored metadata whole) declare all of `metadata` as reset.
_SPEC_AND_METADATA: Final[Paths] = (("spec",), ("metadata",))

_RESIZED: Final = tuple(
    (group, "*", field) for group in ("containers", "initContainers") for field in ("resources", "resizePolicy")
)

# (upstream group, kind) -> subresource ("" for the main resource) -> reset paths, or the only fields.
_EXCEPTIONS: Final[dict[tuple[str, str], dict[str, Reset]]] = {
    ("", "Namespace"): {"finalize": _STATUS},
    ("", "Pod"): {
        "status": (("spec",), ("metadata", "deletionTimestamp"), ("metadata", "ownerReferences")),
        "ephemeralcontainers": KeepOnly((("spec", "ephemeralContainers"),)),
        "resize": KeepOnly(tuple(("spec", *steps) for steps in _RESIZED)),
    },
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): {"status": _SPEC_AND_METADATA},
    ("apiextensions.k8s.io", "CustomResourceDefinition"): {"status": _SPEC_AND_METADATA},
    ("apiregistration.k8s.io", "APIService"): {"status": _SPEC_AND_METADATA},
    ("apps", "Deployment"): {"status": (("spec",), ("metadata", "labels"))},
    ("certificates.k8s.io", "CertificateSigningRequest"): {
        "": (("spec",), ("status",)),
        "status": (("spec",), ("status", "conditions")),
        "approval": (("spec",), ("status", "certificate")),
    },
    ("certificates.k8s.io", "PodCertificateRequest"): {"status": _SPEC_AND_METADATA},
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): {"status": _SPEC_AND_METADATA},
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): {"status": _SPEC_AND_METADATA},
    ("internal.apiserver.k8s.io", "StorageVersion"): {"status": _SPEC_AND_METADATA},
    ("networking.k8s.io", "ServiceCIDR"): {"status": _SPEC_AND_METADATA},
    ("resource.k8s.io", "DeviceTaintRule"): {"status": _SPEC_AND_METADATA},
    ("resource.k8s.io", "ResourceClaim"): {"status": _SPEC_AND_METADATA},
    ("resource.k8s.io", "ResourcePoolStatusRequest"): {"status": _SPEC_AND_METADATA},
    ("scheduling.k8s.io", "PodGroup"): {"status": _SPEC_AND_METADATA},
    ("storage.k8s.io", "VolumeAttachment"): {"status": _SPEC_AND_METADATA},
    ("storagemigration.k8s.io", "StorageVersionMigration"): {"status": _SPEC_AND_METADATA},
}


def reset_fields(resource: Resource, subresource: str) -> Reset:
    """The paths a write through `subresource` of `resource` neither sets nor owns (or the only ones it may).

    The generic rule (built-in kinds and custom resources alike): with a status subresource, the main
    resource resets `status` and `/status` resets `spec`; without one, nothing is reset.
    """
    identity = ("", "") if resource.custom else (resource.upstream_group, resource.kind)
    return _reset_fields(identity, "status" in resource.subresources, subresource)


@functools.cache
def _reset_fields(identity: tuple[str, str], has_status: bool, subresource: str) -> Reset:
    listed = _EXCEPTIONS.get(identity, {})
    if subresource in listed:
        return listed[subresource]
    if not has_status:
        return ()
    if subresource == "":
        return _STATUS
    return _SPEC if subresource == "status" else ()
