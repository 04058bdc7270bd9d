"""PodSecurity: namespace labels choose the level per mode; baseline and restricted checks with
upstream's texts; warnings; workloads are warned, not rejected; exemptions from the config file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import core_path, create, created, pod, warning_texts
from tests.apiserver.test_audit import _events

Obj = dict[str, Any]
RESTRICTED_NGINX = (
    'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), '
    'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), '
    'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), '
    'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or '
    '"Localhost")'
)
SAFE_CONTAINER = {
    "name": "c",
    "image": "nginx",
    "securityContext": {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    },
}


@pytest.fixture
def client(svc_server: RunningServer) -> RestClient:
    return svc_server.client()


def _namespace(client: RestClient, name: str, **labels: str) -> None:
    keys = {f"pod-security.svc.io/{mode}": level for mode, level in labels.items()}
    created(
        client, "namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": keys}}, ""
    )


def test_restricted_enforce_rejects_a_plain_pod_with_upstreams_message(client: RestClient) -> None:
    _namespace(client, "locked", enforce="restricted")
    response = create(client, "pods", pod(), "locked")
    assert response.status == 403
    assert (
        response.json()["message"]
        == f'pods "p" is forbidden: violates PodSecurity "restricted:latest": {RESTRICTED_NGINX}'
    )


def test_restricted_pod_is_admitted(client: RestClient) -> None:
    _namespace(client, "locked", enforce="restricted")
    assert create(client, "pods", pod("p", SAFE_CONTAINER), "locked").status == 201


def test_baseline_rejects_host_namespaces_and_privileged_containers(
    svc_server_factory: Callable[..., RunningServer],
) -> None:
    client = svc_server_factory("--allow-privileged=true").client()
    _namespace(client, "base", enforce="baseline", **{"enforce-version": "v1.36"})
    container = {"name": "c", "image": "nginx", "securityContext": {"privileged": True}}
    response = create(client, "pods", pod("p", container, hostPID=True), "base")
    assert response.json()["message"] == (
        'pods "p" is forbidden: violates PodSecurity "baseline:v1.36": host namespaces (hostPID=true), '
        'privileged (container "c" must not set securityContext.privileged=true)'
    )


def test_baseline_allows_what_restricted_forbids(client: RestClient) -> None:
    _namespace(client, "base", enforce="baseline")
    assert create(client, "pods", pod(), "base").status == 201


def test_warn_mode_admits_with_a_warning(client: RestClient) -> None:
    _namespace(client, "soft", warn="restricted")
    response = create(client, "pods", pod(), "soft")
    assert response.status == 201
    assert warning_texts(response) == [f'would violate PodSecurity "restricted:latest": {RESTRICTED_NGINX}']


def test_workloads_are_warned_but_not_rejected(client: RestClient) -> None:
    _namespace(client, "locked", enforce="restricted", warn="restricted")
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    response = client.request("POST", "/apis/apps/v1/namespaces/locked/deployments", body=deployment)
    assert response.status == 201
    assert warning_texts(response) == [f'would violate PodSecurity "restricted:latest": {RESTRICTED_NGINX}']


def test_invalid_level_label_is_rejected(client: RestClient) -> None:
    body = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "odd", "labels": {"pod-security.svc.io/enforce": "strict"}},
    }
    response = create(client, "namespaces", body, "")
    assert response.status == 422
    assert response.json()["message"] == (
        'Namespace "odd" is invalid: metadata.labels[pod-security.svc.io/enforce]: Invalid value: "strict": '
        "must be one of privileged, baseline, restricted"
    )


def test_tightening_a_namespace_warns_about_existing_pods(client: RestClient) -> None:
    _namespace(client, "team")
    created(client, "pods", pod("a"), "team")
    created(client, "pods", pod("b"), "team")
    namespace = client.request("GET", core_path("namespaces", "", "team")).json()
    namespace["metadata"]["labels"]["pod-security.svc.io/enforce"] = "restricted"
    response = client.request("PUT", core_path("namespaces", "", "team"), body=namespace)
    assert response.status == 200
    assert warning_texts(response) == [
        'existing pods in namespace "team" violate the new PodSecurity enforce level "restricted:latest"',
        f"a (and 1 other pod): {RESTRICTED_NGINX}",
    ]


def test_exempt_namespace_from_the_admission_configuration(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    config = tmp_path / "admission.yaml"
    config.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n"
        "  configuration:\n    apiVersion: pod-security.admission.config.k8s.io/v1\n"
        "    kind: PodSecurityConfiguration\n    defaults: {enforce: restricted}\n"
        "    exemptions: {namespaces: [free]}\n"
    )
    client = svc_server_factory(f"--admission-control-config-file={config}").client()
    _namespace(client, "free")
    _namespace(client, "other")
    assert create(client, "pods", pod(), "free").status == 201
    assert create(client, "pods", pod(), "other").status == 403


AUDIT_POLICY = "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n"


def _audited(svc_server_factory: Callable[..., RunningServer], tmp_path: Path, *flags: str) -> tuple[RestClient, Path]:
    policy = tmp_path / "audit.yaml"
    policy.write_text(AUDIT_POLICY)
    log = tmp_path / "audit.log"
    server = svc_server_factory(f"--audit-policy-file={policy}", f"--audit-log-path={log}", *flags)
    return server.client(), log


def test_audit_mode_and_the_enforced_policy_are_audit_annotations(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    client, log = _audited(svc_server_factory, tmp_path)
    _namespace(client, "team", enforce="baseline", audit="restricted")
    answer = create(client, "pods", pod(), "team")
    assert answer.status == 201
    (event,) = _events(log, answer.headers["Audit-ID"], 1)
    assert event["annotations"]["pod-security.svc.io/enforce-policy"] == "baseline:latest"
    assert event["annotations"]["pod-security.svc.io/audit-violations"] == (
        f'would violate PodSecurity "restricted:latest": {RESTRICTED_NGINX}'
    )


def test_a_rejected_pod_still_carries_its_audit_annotations(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    client, log = _audited(svc_server_factory, tmp_path)
    _namespace(client, "locked", enforce="restricted", audit="restricted")
    answer = create(client, "pods", pod(), "locked")
    assert answer.status == 403
    (event,) = _events(log, answer.headers["Audit-ID"], 1)
    assert event["annotations"]["pod-security.svc.io/enforce-policy"] == "restricted:latest"
    assert "pod-security.svc.io/audit-violations" in event["annotations"]


def test_an_exempt_namespace_is_recorded_as_the_exemption(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    config = tmp_path / "admission.yaml"
    config.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n"
        "  configuration:\n    apiVersion: pod-security.admission.config.k8s.io/v1\n"
        "    kind: PodSecurityConfiguration\n    exemptions: {namespaces: [free]}\n"
    )
    client, log = _audited(svc_server_factory, tmp_path, f"--admission-control-config-file={config}")
    _namespace(client, "free", enforce="restricted")
    answer = create(client, "pods", pod(), "free")
    assert answer.status == 201
    (event,) = _events(log, answer.headers["Audit-ID"], 1)
    assert event["annotations"]["pod-security.svc.io/exempt"] == "namespace"
