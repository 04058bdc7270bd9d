"""Pod spec fields about how the pod runs: host-network ports, readiness gates, runtime class, overhead."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import POD

INVALID = "FieldValueInvalid"


def test_host_network_takes_the_container_port_as_host_port() -> None:
    assert causes("", "Pod", with_path(POD, "spec.hostNetwork", True)) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (
            "spec.containers.0.ports.0.hostPort",
            8080,
            ("spec.containers[0].ports[0].hostPort", INVALID, "must match `containerPort` when `hostNetwork` is true"),
        ),
        (
            "spec.readinessGates",
            [{"conditionType": "example.com/ready!"}],
            ("spec.readinessGates[0].conditionType", INVALID, "must consist of alphanumeric characters"),
        ),
        ("spec.runtimeClassName", "GVisor", ("spec.runtimeClassName", INVALID, "RFC 1123 subdomain")),
        ("spec.runtimeClassName", "", ("spec.runtimeClassName", INVALID, "RFC 1123 subdomain")),
        (
            "spec.overhead",
            {"cpu": "-100m"},
            ("spec.overhead.limits[cpu]", INVALID, "must be greater than or equal to 0"),
        ),
    ],
)
def test_invalid_runtime_fields(path: str, value: Any, expected: tuple[str, str, str]) -> None:
    pod = with_path(POD, path, value)
    if path.endswith("hostPort"):
        pod = with_path(pod, "spec.hostNetwork", True)
    assert_causes(causes("", "Pod", pod), [expected])


def test_valid_runtime_fields_pass() -> None:
    pod = with_path(POD, "spec.readinessGates", [{"conditionType": "example.com/ready"}])
    pod = with_path(with_path(pod, "spec.runtimeClassName", "gvisor"), "spec.overhead", {"cpu": "100m"})
    assert causes("", "Pod", pod) == []
