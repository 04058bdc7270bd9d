"""Pod-level resources (`spec.resources`): upstream's names, the pod covering its containers' requests,
no container limit above the pod's."""

from __future__ import annotations

from typing import Any

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import POD

INVALID, FORBIDDEN, NOT_SUPPORTED = "FieldValueInvalid", "FieldValueForbidden", "FieldValueNotSupported"


def _pod(resources: dict[str, Any], **containers: Any) -> dict[str, Any]:
    pod = with_path(POD, "spec.resources", resources)
    for path, value in containers.items():
        pod = with_path(pod, path.replace("__", "."), value)
    return pod


def test_pod_covering_its_containers_passes() -> None:
    pod = _pod({"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2"}})
    assert causes("", "Pod", pod) == []


def test_only_cpu_memory_and_hugepages_at_pod_level() -> None:
    pod = _pod({"requests": {"cpu": "1", "ephemeral-storage": "1Gi"}})
    assert_causes(
        causes("", "Pod", pod),
        [
            (
                "spec.resources.requests[ephemeral-storage]",
                NOT_SUPPORTED,
                'supported values: "cpu", "hugepages-", "memory"',
            )
        ],
    )


def test_claims_are_forbidden_at_pod_level() -> None:
    pod = _pod({"requests": {"cpu": "1"}, "claims": [{"name": "gpu"}]})
    assert_causes(
        causes("", "Pod", pod),
        [("spec.resources.claims", FORBIDDEN, "claims may not be set for Resources at pod-level")],
    )


def test_pod_requests_must_cover_the_containers() -> None:
    second = {"name": "side", "image": "busybox", "resources": {"requests": {"cpu": "500m"}}}
    pod = _pod({"requests": {"cpu": "600m"}}, spec__containers__1=second)
    assert_causes(
        causes("", "Pod", pod),
        [
            (
                "spec.resources.requests[cpu]",
                INVALID,
                'Invalid value: "600m": must be greater than or equal to aggregate container requests of 750m',
            )
        ],
    )


def test_sidecars_add_up_and_init_containers_run_alone() -> None:
    sidecar = {"name": "proxy", "image": "envoy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}}
    setup = {"name": "setup", "image": "busybox", "resources": {"requests": {"cpu": "2"}}}
    pod = _pod({"requests": {"cpu": "2"}}, spec__initContainers=[sidecar, setup])
    assert_causes(
        causes("", "Pod", pod),
        [
            (
                "spec.resources.requests[cpu]",
                INVALID,
                "must be greater than or equal to aggregate container requests of 3",
            )
        ],
    )


def test_container_limit_may_not_pass_the_pod_limit() -> None:
    pod = _pod({"requests": {"cpu": "250m"}, "limits": {"cpu": "400m"}})
    assert_causes(
        causes("", "Pod", pod),
        [
            (
                "spec.resources.containers[0][cpu].limits",
                INVALID,
                'Invalid value: "500m": must be less than or equal to pod limits of 400m',
            )
        ],
    )


def test_pod_requests_within_pod_limits() -> None:
    pod = _pod({"requests": {"cpu": "3"}, "limits": {"cpu": "2"}})
    assert_causes(
        causes("", "Pod", pod),
        [("spec.resources.requests", INVALID, "must be less than or equal to cpu limit of 2")],
    )


def test_pod_hugepage_limit_must_cover_the_containers() -> None:
    huge = {"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}, "requests": {"memory": "1Gi"}}
    second = {"name": "side", "image": "busybox", "resources": huge}
    pod = _pod(
        {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"hugepages-2Mi": "6Mi", "memory": "2Gi"}},
        spec__containers__0__resources=huge,
        spec__containers__1=second,
    )
    # The pod's hugepage request defaults to its limit, so the requests fall short too.
    assert_causes(
        causes("", "Pod", pod),
        [
            ("spec.resources.requests[hugepages-2Mi]", INVALID, "aggregate container requests of 8Mi"),
            (
                "spec.resources.limits[hugepages-2Mi]",
                INVALID,
                'Invalid value: "6Mi": must be greater than or equal to aggregate container limits of 8Mi',
            ),
        ],
    )


def test_windows_pods_may_not_set_pod_level_resources() -> None:
    pod = _pod({"requests": {"cpu": "1"}, "limits": {"cpu": "300m"}}, spec__os={"name": "windows"})
    assert_causes(
        causes("", "Pod", pod), [("spec.resources", FORBIDDEN, "Forbidden: may not be set for a windows pod")]
    )


def test_a_resource_the_pod_does_not_request_is_left_to_the_containers() -> None:
    # upstream 1.36 `validatePodResourceConsistency` skips a resource with no pod-level request
    second = {"name": "side", "image": "busybox", "resources": {"requests": {"memory": "2Gi"}}}
    pod = _pod({"requests": {"cpu": "1"}}, spec__containers__1=second)
    assert causes("", "Pod", pod) == []
