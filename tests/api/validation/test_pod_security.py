"""Pod and container security context validation beyond ids: each invalid case gives upstream's causes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import C0, DUPLICATE, INVALID, NOT_SUPPORTED, POD, REQUIRED

TOO_LONG = "FieldValueTooLong"

PSC = "spec.securityContext"
CSC = f"{C0}.securityContext"
SYSCTL_REGEX = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"

VALID_POD_CONTEXT = {
    "sysctls": [{"name": "net.ipv4.ip_local_port_range", "value": "1024 65535"}, {"name": "kernel/shm_rmid_forced"}],
    "seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/audit.json"},
    "appArmorProfile": {"type": "RuntimeDefault"},
    "fsGroupChangePolicy": "OnRootMismatch",
    "supplementalGroupsPolicy": "Strict",
    "seLinuxChangePolicy": "MountOption",
}
VALID_CONTAINER_CONTEXT = {
    "procMount": "Default",
    "seccompProfile": {"type": "RuntimeDefault"},
    "appArmorProfile": {"type": "Localhost", "localhostProfile": "k8s-nginx"},
    "capabilities": {"add": ["NET_BIND_SERVICE"], "drop": ["ALL"]},
}

INVALID_CONTEXTS = [
    (
        "sysctl without a name",
        PSC,
        {"sysctls": [{"name": "", "value": "1"}]},
        [(f"{PSC}.sysctls[0].name", REQUIRED, "Required value")],
    ),
    (
        "sysctl name with capitals",
        PSC,
        {"sysctls": [{"name": "Net.core.somaxconn", "value": "1"}]},
        [(f"{PSC}.sysctls[0].name", INVALID, f"must have at most 253 characters and match regex {SYSCTL_REGEX}")],
    ),
    (
        "sysctl set twice",
        PSC,
        {"sysctls": [{"name": "net.core.somaxconn", "value": "1"}, {"name": "net.core.somaxconn", "value": "2"}]},
        [(f"{PSC}.sysctls[1].name", DUPLICATE, 'Duplicate value: "net.core.somaxconn"')],
    ),
    (
        "seccomp profile without a type",
        PSC,
        {"seccompProfile": {}},
        [(f"{PSC}.seccompProfile.type", REQUIRED, "type is required when seccompProfile is set")],
    ),
    (
        "seccomp profile of an unknown type",
        PSC,
        {"seccompProfile": {"type": "Strict"}},
        [(f"{PSC}.seccompProfile.type", NOT_SUPPORTED, '"Localhost", "RuntimeDefault", "Unconfined"')],
    ),
    (
        "localhost seccomp profile without a file",
        PSC,
        {"seccompProfile": {"type": "Localhost"}},
        [(f"{PSC}.seccompProfile.localhostProfile", REQUIRED, "must be set when seccomp type is Localhost")],
    ),
    (
        "localhost seccomp profile outside the profile root",
        PSC,
        {"seccompProfile": {"type": "Localhost", "localhostProfile": "/etc/../audit.json"}},
        [
            (f"{PSC}.seccompProfile.localhostProfile", INVALID, "must be a relative path"),
            (f"{PSC}.seccompProfile.localhostProfile", INVALID, "must not contain '..'"),
        ],
    ),
    (
        "seccomp file beside another type",
        PSC,
        {"seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "audit.json"}},
        [
            (
                f"{PSC}.seccompProfile.localhostProfile",
                INVALID,
                'Invalid value: {"Type":"RuntimeDefault","LocalhostProfile":"audit.json"}: can only be set when',
            )
        ],
    ),
    (
        "AppArmor profile without a type",
        PSC,
        {"appArmorProfile": {}},
        [(f"{PSC}.appArmorProfile.type", REQUIRED, "type is required when appArmorProfile is set")],
    ),
    (
        "AppArmor localhost profile padded with spaces",
        PSC,
        {"appArmorProfile": {"type": "Localhost", "localhostProfile": " k8s "}},
        [(f"{PSC}.appArmorProfile.localhostProfile", INVALID, "must not be padded with whitespace")],
    ),
    (
        "AppArmor localhost profile too long",
        PSC,
        {"appArmorProfile": {"type": "Localhost", "localhostProfile": "p" * 4096}},
        [(f"{PSC}.appArmorProfile.localhostProfile", TOO_LONG, "may not be more than 4095 bytes")],
    ),
    (
        "unknown fsGroup change policy",
        PSC,
        {"fsGroupChangePolicy": "Never"},
        [(f"{PSC}.fsGroupChangePolicy", NOT_SUPPORTED, 'supported values: "Always", "OnRootMismatch"')],
    ),
    (
        "unknown supplemental groups policy",
        PSC,
        {"supplementalGroupsPolicy": "Union"},
        [(f"{PSC}.supplementalGroupsPolicy", NOT_SUPPORTED, 'supported values: "Merge", "Strict"')],
    ),
    (
        "unknown SELinux change policy",
        PSC,
        {"seLinuxChangePolicy": "Lazy"},
        [(f"{PSC}.seLinuxChangePolicy", NOT_SUPPORTED, 'supported values: "MountOption", "Recursive"')],
    ),
    (
        "container proc mount of an unknown type",
        CSC,
        {"procMount": "Masked"},
        [(f"{CSC}.procMount", NOT_SUPPORTED, 'Unsupported value: "Masked": supported values: "Default", "Unmasked"')],
    ),
    (
        "container seccomp profile of an unknown type",
        CSC,
        {"seccompProfile": {"type": "docker/default"}},
        [(f"{CSC}.seccompProfile.type", NOT_SUPPORTED, '"Localhost", "RuntimeDefault", "Unconfined"')],
    ),
    (
        "container AppArmor file beside another type",
        CSC,
        {"appArmorProfile": {"type": "Unconfined", "localhostProfile": "k8s"}},
        [(f"{CSC}.appArmorProfile.localhostProfile", INVALID, "can only be set when AppArmor type is Localhost")],
    ),
]


def test_valid_security_contexts_pass() -> None:
    pod = with_path(POD, PSC, VALID_POD_CONTEXT)
    assert causes("", "Pod", with_path(pod, "spec.containers.0.securityContext", VALID_CONTAINER_CONTEXT)) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"), [c[1:] for c in INVALID_CONTEXTS], ids=[c[0] for c in INVALID_CONTEXTS]
)
def test_invalid_security_context(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes("", "Pod", with_path(POD, path.replace("[0]", ".0"), value)), expected)


@pytest.mark.parametrize(("host_flag", "sysctl"), [("hostNetwork", "net.core.somaxconn"), ("hostIPC", "kernel.shmmax")])
def test_namespaced_sysctl_refused_when_sharing_the_host_namespace(host_flag: str, sysctl: str) -> None:
    pod = with_path(with_path(POD, f"spec.{host_flag}", True), PSC, {"sysctls": [{"name": sysctl, "value": "1"}]})
    expected = [(f"{PSC}.sysctls[0].name", INVALID, f"may not be specified when '{host_flag}' is true")]
    assert_causes(causes("", "Pod", pod), expected)


def test_shared_process_namespace_refused_with_host_pid() -> None:
    pod = with_path(with_path(POD, "spec.hostPID", True), "spec.shareProcessNamespace", True)
    expected = [(f"{PSC}.shareProcessNamespace", INVALID, "ShareProcessNamespace and HostPID cannot both be enabled")]
    assert_causes(causes("", "Pod", pod), expected)


def test_own_user_namespace_refuses_host_namespaces() -> None:
    pod = with_path(with_path(POD, "spec.hostUsers", False), "spec.hostNetwork", True)
    pod = with_path(pod, "spec.hostPID", True)
    expected = [
        ("spec.hostNetwork", "FieldValueForbidden", "Forbidden: when `pod.Spec.HostUsers` is false"),
        ("spec.HostPID", "FieldValueForbidden", "Forbidden: when `pod.Spec.HostUsers` is false"),
    ]
    assert_causes(causes("", "Pod", pod), expected)


def test_unmasked_proc_mount_needs_an_own_user_namespace() -> None:
    pod = with_path(POD, "spec.containers.0.securityContext", {"procMount": "Unmasked"})
    expected = [(f"{CSC}.procMount", INVALID, 'Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`')]
    assert_causes(causes("", "Pod", pod), expected)
    assert causes("", "Pod", with_path(pod, "spec.hostUsers", False)) == []
