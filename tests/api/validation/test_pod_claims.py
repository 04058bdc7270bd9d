"""A pod's resource claims and the containers' references to them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import POD

CLAIM = {"name": "gpu", "resourceClaimTemplateName": "gpu-template"}


def test_claims_referenced_by_containers_pass() -> None:
    pod = with_path(POD, "spec.resourceClaims", [CLAIM])
    pod = with_path(pod, "spec.containers.0.resources.claims", [{"name": "gpu"}])
    assert causes("", "Pod", pod) == []


@pytest.mark.parametrize(
    ("claims", "references", "expected"),
    [
        (
            [{"name": "gpu"}],
            [],
            [("spec.resourceClaims[0]", "FieldValueInvalid", "must specify one of: `resourceClaimName`")],
        ),
        (
            [{**CLAIM, "resourceClaimName": "shared"}],
            [],
            [("spec.resourceClaims[0]", "FieldValueInvalid", "at most one of `resourceClaimName`")],
        ),
        (
            [CLAIM, CLAIM],
            [],
            [("spec.resourceClaims[1].name", "FieldValueDuplicate", "")],
        ),
        (
            [CLAIM],
            [{"name": "fpga"}],
            [
                (
                    "spec.containers[0].resources.claims[0]",
                    "FieldValueNotFound",
                    "must be one of the names in pod.spec.resourceClaims: gpu",
                )
            ],
        ),
    ],
)
def test_invalid_claims(claims: list[Any], references: list[Any], expected: list[tuple[str, str, str]]) -> None:
    pod = with_path(POD, "spec.resourceClaims", claims)
    if references:
        pod = with_path(pod, "spec.containers.0.resources.claims", references)
    assert_causes(causes("", "Pod", pod), expected)
