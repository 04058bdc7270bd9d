"""Annotations with meaning for pods: mirror marker, deletion cost, deprecated seccomp and AppArmor profiles."""

from __future__ import annotations

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT

INVALID = "FieldValueInvalid"
APPARMOR = "container.apparmor.security.beta.kubernetes.io/nginx"
SECCOMP = "seccomp.security.alpha.kubernetes.io/pod"


def _annotated(annotations: dict[str, str]) -> dict:
    return with_path(POD, "metadata.annotations", annotations)


def test_known_profiles_and_costs_pass() -> None:
    pod = _annotated(
        {
            SECCOMP: "localhost/profiles/audit.json",
            APPARMOR: "runtime/default",
            "controller.kubernetes.io/pod-deletion-cost": "-10",
        }
    )
    assert causes("", "Pod", pod) == []


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({SECCOMP: "strict"}, (f"metadata.annotations.{SECCOMP}", INVALID, "must be a valid seccomp profile")),
        ({SECCOMP: "localhost/../etc"}, (f"metadata.annotations.{SECCOMP}", INVALID, "must not contain '..'")),
        (
            {APPARMOR: "strict"},
            (f"metadata.annotations[{APPARMOR}]", INVALID, 'invalid AppArmor profile name: "strict"'),
        ),
        (
            {"container.apparmor.security.beta.kubernetes.io/ghost": "unconfined"},
            (
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/ghost]",
                INVALID,
                "container not found",
            ),
        ),
        (
            {"controller.kubernetes.io/pod-deletion-cost": "+5"},
            ("metadata.annotations[controller.kubernetes.io/pod-deletion-cost]", INVALID, "must be a 32bit integer"),
        ),
        (
            {"kubernetes.io/config.mirror": "x"},
            ("metadata.annotations[kubernetes.io/config.mirror]", INVALID, "must set spec.nodeName"),
        ),
    ],
)
def test_invalid_pod_annotations(annotations: dict[str, str], expected: tuple[str, str, str]) -> None:
    assert_causes(causes("", "Pod", _annotated(annotations)), [expected])


def test_template_annotations_are_checked_under_the_template() -> None:
    deployment = with_path(DEPLOYMENT, "spec.template.metadata.annotations", {SECCOMP: "strict"})
    found = causes("apps", "Deployment", deployment)
    assert_causes(found, [(f"spec.template.annotations.{SECCOMP}", INVALID, "must be a valid seccomp profile")])
