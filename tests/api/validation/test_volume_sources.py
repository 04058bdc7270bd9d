"""A PersistentVolume's source: the required members of each source, upstream's order for extra sources."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_volumes_and_classes import VOLUME

REQUIRED, INVALID, FORBIDDEN = "FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden"
PLAIN = with_path(with_path(VOLUME, "spec.local", ...), "spec.nodeAffinity", ...)


@pytest.mark.parametrize(
    "source",
    [
        {"nfs": {"server": "nfs.example.com", "path": "/exports"}},
        {"iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0}},
        {"fc": {"targetWWNs": ["500a0981891b8dc5"], "lun": 2}},
        {"csi": {"driver": "disk.example.com", "volumeHandle": "vol-1"}},
    ],
)
def test_complete_sources_pass(source: dict[str, Any]) -> None:
    volume = with_path(PLAIN, "spec", {**PLAIN["spec"], **source})
    assert causes("", "PersistentVolume", volume) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            {"nfs": {"server": "", "path": "exports"}},
            [
                ("spec.nfs.server", REQUIRED, ""),
                ("spec.nfs.path", INVALID, "must be an absolute path"),
            ],
        ),
        (
            {"iscsi": {"targetPortal": "10.0.0.1", "iqn": "iqn.bad", "lun": 300}},
            [
                ("spec.iscsi.iqn", INVALID, "must be valid format starting with iqn"),
                ("spec.iscsi.lun", INVALID, "must be between 0 and 255, inclusive"),
            ],
        ),
        (
            {"fc": {"targetWWNs": ["500a0981891b8dc5"]}},
            [("spec.fc.lun", REQUIRED, "lun is required if targetWWNs is specified")],
        ),
        ({"rbd": {"monitors": ["10.0.0.1"]}}, [("spec.rbd.image", REQUIRED, "")]),
        (
            {"csi": {"driver": "Disk_Driver", "volumeHandle": ""}},
            [("spec.csi.driver", INVALID, "RFC 1123 subdomain"), ("spec.csi.volumeHandle", REQUIRED, "")],
        ),
        (
            {"nfs": {"server": "s", "path": "/p"}, "hostPath": {"path": "/data"}},
            [("spec.nfs", FORBIDDEN, "may not specify more than 1 volume type")],
        ),
    ],
)
def test_incomplete_sources(source: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    volume = with_path(PLAIN, "spec", {**PLAIN["spec"], **source})
    assert_causes(causes("", "PersistentVolume", volume), expected)
