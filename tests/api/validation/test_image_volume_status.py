"""The digest a kubelet reports for an image volume (`status.*ContainerStatuses[].volumeMounts[].
volumeStatus.image`, gate ImageVolumeWithDigest, alpha and off in 1.36): dropped from status writes while
the gate is off and the stored status does not use it; with the gate on, checked as upstream's
`validateVolumeStatus` does (a reference is given, at most 256 bytes, at upstream's `imageVolumeStatus`
path)."""

from __future__ import annotations

from typing import Any

from tests.api.validation.support import assert_causes
from tests.api.validation.test_status_writes import NS, POD, _causes, _write_status

MOUNT = "status.containerStatuses[0].volumeMounts"


def _statuses(*references: str) -> dict[str, Any]:
    mounts = [
        {"name": f"v{index}", "mountPath": f"/v{index}", "volumeStatus": {"image": {"imageRef": reference}}}
        for index, reference in enumerate(references)
    ]
    status = {"name": "c", "image": "busybox", "imageID": "", "ready": False, "restartCount": 0}
    return {"containerStatuses": [{**status, "volumeMounts": mounts}]}


def test_with_the_gate_on_a_digest_must_be_given_and_short(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes", "--feature-gates=ImageVolumeWithDigest=true").client()
    answer = _write_status(client, f"{NS}/pods", POD, _statuses("", "example.com/x@sha256:" + "a" * 250))
    assert_causes(
        _causes(answer),
        [
            (f"{MOUNT}[0].volumeStatus.imageVolumeStatus.imageRef", "FieldValueRequired", "imageRef must not be empty"),
            (
                f"{MOUNT}[1].volumeStatus.imageVolumeStatus.imageRef",
                "FieldValueTooLong",
                "may not be more than 256 bytes",
            ),
        ],
    )


def test_with_the_gate_off_a_new_digest_is_dropped_not_judged(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    answer = _write_status(client, f"{NS}/pods", POD, _statuses(""))
    assert answer.status == 200, answer.body
    assert answer.json()["status"]["containerStatuses"][0]["volumeMounts"] == [{"name": "v0", "mountPath": "/v0"}]
