"""PersistentVolume, CSIDriver, VolumeAttachment and IngressClass: valid fixtures pass, and each invalid
case yields upstream's (field, reason, detail)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, NOT_SUPPORTED, FORBIDDEN = (
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueNotSupported",
    "FieldValueForbidden",
)
STORAGE, NETWORKING = "storage.k8s.io", "networking.k8s.io"
VOLUME = {
    "metadata": {"name": "pv-1"},
    "spec": {
        "capacity": {"storage": "10Gi"},
        "accessModes": ["ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "fast",
        "local": {"path": "/mnt/disk"},
        "nodeAffinity": {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]}]}
                ]
            }
        },
    },
}
DRIVER = {
    "metadata": {"name": "csi.example.com"},
    "spec": {"attachRequired": True, "tokenRequests": [{"audience": "vault", "expirationSeconds": 3600}]},
}
ATTACHMENT = {
    "metadata": {"name": "va-1"},
    "spec": {"attacher": "csi.example.com", "nodeName": "node-1", "source": {"persistentVolumeName": "pv-1"}},
}
INGRESS_CLASS = {
    "metadata": {"name": "nginx"},
    "spec": {
        "controller": "example.com/ingress-nginx",
        "parameters": {
            "apiGroup": "k8s.example.com",
            "kind": "Params",
            "name": "p",
            "scope": "Namespace",
            "namespace": "x",
        },
    },
}
TERM = "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]"

VALID = [
    ("", "PersistentVolume", VOLUME),
    (STORAGE, "CSIDriver", DRIVER),
    (STORAGE, "VolumeAttachment", ATTACHMENT),
    (NETWORKING, "IngressClass", INGRESS_CLASS),
]


@pytest.mark.parametrize(("group", "kind", "obj"), VALID, ids=[case[1] for case in VALID])
def test_valid_object_passes(group: str, kind: str, obj: dict[str, Any]) -> None:
    assert causes(group, kind, obj) == []


INVALID_OBJECTS = [
    (
        "volume without access modes",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.accessModes", []),
        [("spec.accessModes", REQUIRED, "Required value")],
    ),
    (
        "volume with an unknown access mode",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.accessModes", ["ReadWriteSome"]),
        [("spec.accessModes", NOT_SUPPORTED, 'supported values: "ReadOnlyMany", "ReadWriteMany"')],
    ),
    (
        "volume without capacity",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.capacity", ...),
        [
            ("spec.capacity", REQUIRED, "Required value"),
            ("spec.capacity", NOT_SUPPORTED, 'supported values: "storage"'),
        ],
    ),
    (
        "volume of zero size",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.capacity.storage", "0"),
        [("spec.capacity[storage]", INVALID, 'Invalid value: "0": must be greater than zero')],
    ),
    (
        "volume with two sources",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.hostPath", {"path": "/data"}),
        [("spec.local", FORBIDDEN, "may not specify more than 1 volume type")],
    ),
    (
        "volume without a source",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.local", ...),
        [("spec", REQUIRED, "must specify a volume type")],
    ),
    (
        "local volume without node affinity",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.nodeAffinity", ...),
        [("spec.nodeAffinity", REQUIRED, "Local volume requires node affinity")],
    ),
    (
        "volume with an unknown reclaim policy",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.persistentVolumeReclaimPolicy", "Keep"),
        [("spec.persistentVolumeReclaimPolicy", NOT_SUPPORTED, 'supported values: "Delete", "Recycle", "Retain"')],
    ),
    (
        "node affinity without required terms",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.nodeAffinity", {}),
        [("spec.nodeAffinity.required", REQUIRED, "must specify required node constraints")],
    ),
    (
        "node affinity In without values",
        "",
        "PersistentVolume",
        with_path(VOLUME, "spec.nodeAffinity.required.nodeSelectorTerms.0.matchExpressions.0.values", []),
        [(f"{TERM}.values", REQUIRED, "must be specified when `operator` is 'In' or 'NotIn'")],
    ),
    (
        "CSI driver with an unknown fsGroup policy",
        STORAGE,
        "CSIDriver",
        with_path(DRIVER, "spec.fsGroupPolicy", "Always"),
        [("spec.fsGroupPolicy", NOT_SUPPORTED, 'supported values: "File", "None", "ReadWriteOnceWithFSType"')],
    ),
    (
        "CSI driver token shorter than ten minutes",
        STORAGE,
        "CSIDriver",
        with_path(DRIVER, "spec.tokenRequests.0.expirationSeconds", 60),
        [("spec.tokenRequests[0].expirationSeconds", INVALID, "may not specify a duration less than 10 minutes")],
    ),
    (
        "CSI driver audiences repeat",
        STORAGE,
        "CSIDriver",
        with_path(DRIVER, "spec.tokenRequests.1", {"audience": "vault"}),
        [("spec.tokenRequests[1].audience", "FieldValueDuplicate", 'Duplicate value: "vault"')],
    ),
    (
        "CSI driver with an unknown lifecycle mode",
        STORAGE,
        "CSIDriver",
        with_path(DRIVER, "spec.volumeLifecycleModes", ["Forever"]),
        [("spec.volumeLifecycleModes", NOT_SUPPORTED, 'supported values: "Persistent", "Ephemeral"')],
    ),
    (
        "attachment without a source",
        STORAGE,
        "VolumeAttachment",
        with_path(ATTACHMENT, "spec.source", {}),
        [("spec.source", REQUIRED, "must specify exactly one of inlineVolumeSpec and persistentVolumeName")],
    ),
    (
        "attachment with both sources",
        STORAGE,
        "VolumeAttachment",
        with_path(ATTACHMENT, "spec.source.inlineVolumeSpec", {"accessModes": ["ReadWriteOnce"], "csi": {}}),
        [("spec.source", FORBIDDEN, "must specify exactly one of inlineVolumeSpec and persistentVolumeName")],
    ),
    (
        "attachment without an attacher",
        STORAGE,
        "VolumeAttachment",
        with_path(ATTACHMENT, "spec.attacher", ...),
        [("spec.attacher", REQUIRED, "Required value")],
    ),
    (
        "attachment to an invalid node name",
        STORAGE,
        "VolumeAttachment",
        with_path(ATTACHMENT, "spec.nodeName", "Node_1"),
        [("spec.nodeName", INVALID, "a lowercase RFC 1123 subdomain")],
    ),
    (
        "ingress class controller without a path",
        NETWORKING,
        "IngressClass",
        with_path(INGRESS_CLASS, "spec.controller", "nginx"),
        [("spec.controller", INVALID, 'must be a domain-prefixed path (such as "acme.io/foo")')],
    ),
    (
        "ingress class parameters scoped to a namespace without one",
        NETWORKING,
        "IngressClass",
        with_path(INGRESS_CLASS, "spec.parameters.namespace", ...),
        [("spec.parameters.namespace", REQUIRED, "`parameters.scope` is set to 'Namespace'")],
    ),
    (
        "ingress class parameters of an unknown scope",
        NETWORKING,
        "IngressClass",
        with_path(INGRESS_CLASS, "spec.parameters.scope", "Global"),
        [("spec.parameters.scope", NOT_SUPPORTED, 'supported values: "Cluster", "Namespace"')],
    ),
]


@pytest.mark.parametrize(
    ("group", "kind", "obj", "expected"),
    [case[1:] for case in INVALID_OBJECTS],
    ids=[case[0] for case in INVALID_OBJECTS],
)
def test_invalid_object(group: str, kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(group, kind, obj), expected)


def test_volume_source_cannot_change() -> None:
    changed = with_path(VOLUME, "spec.local.path", "/mnt/other")
    expected = [("spec.persistentvolumesource", FORBIDDEN, "spec.persistentvolumesource is immutable after creation")]
    assert_causes(causes("", "PersistentVolume", changed, old=VOLUME), expected)


def test_csi_driver_attach_required_cannot_change() -> None:
    changed = with_path(DRIVER, "spec.attachRequired", False)
    expected = [("spec.attachedRequired", INVALID, "Invalid value: false: field is immutable")]
    assert_causes(causes(STORAGE, "CSIDriver", changed, old=DRIVER), expected)


def test_attachment_spec_cannot_change() -> None:
    changed = with_path(ATTACHMENT, "spec.nodeName", "node-2")
    source = '{"PersistentVolumeName":"pv-1","InlineVolumeSpec":null}'
    shown = f'{{"Attacher":"csi.example.com","Source":{source},"NodeName":"node-2"}}'
    expected = [("spec", INVALID, f"Invalid value: {shown}: field is immutable")]
    assert_causes(causes(STORAGE, "VolumeAttachment", changed, old=ATTACHMENT), expected)


def test_ingress_class_controller_cannot_change() -> None:
    changed = with_path(INGRESS_CLASS, "spec.controller", "example.com/other")
    expected = [("spec.controller", INVALID, 'Invalid value: "example.com/other": field is immutable')]
    assert_causes(causes(NETWORKING, "IngressClass", changed, old=INGRESS_CLASS), expected)
