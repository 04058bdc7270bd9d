"""PodSecurity version pinning: `<mode>-version: v1.N` judges a pod by the checks as they were at 1.N,
as upstream's policy registry does; newer pins than the server's evaluate as the server's."""

from __future__ import annotations

from typing import Any

from svc.apiserver.admission.podsecurity.checks import violations
from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import create, created, pod

Obj = dict[str, Any]
RESTRICTED_SECURITY = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def _spec(**security: Any) -> Obj:
    return {"containers": [{"name": "c", "image": "nginx", "securityContext": {**RESTRICTED_SECURITY, **security}}]}


def _sysctl_spec(name: str) -> Obj:
    return {"containers": [{"name": "c", "image": "nginx"}], "securityContext": {"sysctls": [{"name": name}]}}


def test_sysctls_allowed_list_grows_with_the_version() -> None:
    spec = _sysctl_spec("net.ipv4.tcp_rmem")
    assert violations("baseline", "v1.31", {}, spec) == ["forbidden sysctls (net.ipv4.tcp_rmem)"]
    assert violations("baseline", "v1.32", {}, spec) == []


def test_keepalive_sysctls_are_allowed_from_1_29() -> None:
    spec = _sysctl_spec("net.ipv4.tcp_keepalive_time")
    assert violations("baseline", "v1.28", {}, spec) != []
    assert violations("baseline", "v1.29", {}, spec) == []


def test_run_as_user_zero_is_restricted_only_from_1_23() -> None:
    spec = _spec(runAsUser=0)
    assert violations("restricted", "v1.22", {}, spec) == []
    assert violations("restricted", "v1.23", {}, spec) == ['runAsUser=0 (container "c" must not set runAsUser=0)']


def test_restricted_before_1_22_applies_the_baseline_capabilities_check() -> None:
    spec = _spec(capabilities={"add": ["NET_RAW"]})
    assert violations("restricted", "v1.21", {}, spec) == [
        'non-default capabilities (container "c" must not include "NET_RAW" in securityContext.capabilities.add)'
    ]
    assert violations("restricted", "v1.22", {}, spec) == [
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; '
        'container "c" must not include "NET_RAW" in securityContext.capabilities.add)'
    ]


def test_windows_pods_are_exempt_from_linux_only_restricted_checks_from_1_25() -> None:
    spec = {"os": {"name": "windows"}, "securityContext": {"runAsNonRoot": True}, "containers": [{"name": "c"}]}
    assert len(violations("restricted", "v1.24", {}, spec)) == 3
    assert violations("restricted", "v1.25", {}, spec) == []


def test_before_1_19_seccomp_is_judged_by_its_annotations() -> None:
    metadata = {"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}
    spec = {"containers": [{"name": "c", "securityContext": {"seccompProfile": {"type": "Unconfined"}}}]}
    assert violations("baseline", "v1.18", metadata, spec) == [
        'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")'
    ]
    assert violations("baseline", "v1.19", metadata, spec) == [
        'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")'
    ]


def test_probe_hosts_are_checked_from_1_34() -> None:
    spec = {"containers": [{"name": "c", "livenessProbe": {"httpGet": {"host": "10.0.0.1", "port": 80}}}]}
    assert violations("baseline", "v1.33", {}, spec) == []
    assert violations("baseline", "v1.34", {}, spec) == [
        'probe or lifecycle host (container "c" uses probe or lifecycle host "10.0.0.1")'
    ]


def test_unmasked_proc_mount_in_a_user_namespace_is_baseline_from_1_35_but_never_restricted() -> None:
    spec = {"hostUsers": False, **_spec(procMount="Unmasked")}
    forbidden = 'procMount (container "c" must not set securityContext.procMount to "Unmasked")'
    assert violations("baseline", "v1.34", {}, spec) == [forbidden]
    assert violations("baseline", "v1.35", {}, spec) == []
    assert violations("restricted", "latest", {}, spec) == [forbidden]


def test_run_as_root_in_a_user_namespace_is_allowed_from_1_35() -> None:
    spec = {"hostUsers": False, **_spec(runAsNonRoot=False, runAsUser=0)}
    assert len(violations("restricted", "v1.34", {}, spec)) == 2
    assert violations("restricted", "v1.35", {}, spec) == []


def test_selinux_container_engine_type_is_allowed_from_1_31() -> None:
    spec = {"containers": [{"name": "c", "securityContext": {"seLinuxOptions": {"type": "container_engine_t"}}}]}
    assert violations("baseline", "v1.30", {}, spec) == [
        'seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "container_engine_t")'
    ]
    assert violations("baseline", "v1.31", {}, spec) == []


def test_a_version_newer_than_the_server_evaluates_as_latest() -> None:
    spec = _spec(runAsUser=0, procMount="Unmasked")
    assert violations("restricted", "v1.99", {}, spec) == violations("restricted", "latest", {}, spec) != []


def test_a_pinned_enforce_version_admits_what_latest_rejects(svc_server: RunningServer) -> None:
    client: RestClient = svc_server.client()
    labels = {"pod-security.svc.io/enforce": "restricted", "pod-security.svc.io/enforce-version": "v1.22"}
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "old", "labels": labels}}
    created(client, "namespaces", namespace, "")
    container = {"name": "c", "image": "nginx", "securityContext": {**RESTRICTED_SECURITY, "runAsUser": 0}}
    assert create(client, "pods", pod("p", container), "old").status == 201
    labels["pod-security.svc.io/enforce-version"] = "v1.23"
    created(client, "namespaces", {**namespace, "metadata": {"name": "newer", "labels": labels}}, "")
    response = create(client, "pods", pod("p", container), "newer")
    assert response.status == 403
    assert response.json()["message"] == (
        'pods "p" is forbidden: violates PodSecurity "restricted:v1.23": '
        'runAsUser=0 (container "c" must not set runAsUser=0)'
    )
