"""`spec.securityContext.seLinuxChangePolicy` as upstream 1.36 validates it with its feature gates: without
`SELinuxMount` (beta, off by default) a pod spec may ask only for `Recursive`, unless the stored spec already
names a policy; with the gate on, `MountOption` too. Pods and pod templates alike."""

from __future__ import annotations

import copy

import pytest

from svc.api.validation.gates import READ_BY_VALIDATION, UPSTREAM_DEFAULTS
from svc.apiserver.feature_gates import FeatureGates
from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT
from tests.e2e.kubectl_runner import Kubectl

PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
FIELD = "spec.securityContext.seLinuxChangePolicy"


def _pod(policy: str | None, name: str = "p") -> dict:
    pod = copy.deepcopy(POD)
    pod["metadata"] = {"name": name}
    if policy is not None:
        pod["spec"]["securityContext"] = {"seLinuxChangePolicy": policy}
    return pod


def _causes(response) -> list[dict]:
    assert response.status == 422, response.body
    return response.json()["details"]["causes"]


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def test_the_defaults_used_without_a_server_are_the_servers() -> None:
    served = FeatureGates()
    assert {name: UPSTREAM_DEFAULTS.enabled(name) for name in READ_BY_VALIDATION} == {
        name: served.enabled(name) for name in READ_BY_VALIDATION
    }


def test_without_selinux_mount_a_new_pod_may_only_ask_for_recursive(api) -> None:
    causes = _causes(api.request("POST", PODS, body=_pod("MountOption")))
    assert causes == [
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "MountOption": supported values: "Recursive"',
            "field": FIELD,
        }
    ]
    assert api.request("POST", PODS, body=_pod("Recursive")).status == 201


def test_a_pod_template_follows_the_same_rule(api) -> None:
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["securityContext"] = {"seLinuxChangePolicy": "MountOption"}
    causes = _causes(api.request("POST", DEPLOYMENTS, body=deployment))
    assert [(c["field"], c["reason"]) for c in causes] == [
        (f"spec.template.{FIELD}", "FieldValueNotSupported"),
    ]


def test_an_update_may_keep_any_policy_the_stored_spec_names(api) -> None:
    """Upstream's ratchet: a stored spec with a policy keeps every policy allowed on update."""
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["securityContext"] = {"seLinuxChangePolicy": "Recursive"}
    created = api.request("POST", DEPLOYMENTS, body=deployment)
    assert created.status == 201, created.body
    stored = created.json()
    stored["spec"]["template"]["spec"]["securityContext"]["seLinuxChangePolicy"] = "MountOption"
    assert api.request("PUT", f"{DEPLOYMENTS}/{stored['metadata']['name']}", body=stored).status == 200


def test_an_update_adding_mount_option_to_a_spec_without_a_policy_is_refused(api) -> None:
    deployment = copy.deepcopy(DEPLOYMENT)
    created = api.request("POST", DEPLOYMENTS, body=deployment)
    assert created.status == 201, created.body
    stored = created.json()
    stored["spec"]["template"]["spec"]["securityContext"] = {"seLinuxChangePolicy": "MountOption"}
    causes = _causes(api.request("PUT", f"{DEPLOYMENTS}/{stored['metadata']['name']}", body=stored))
    assert causes[0]["message"] == 'Unsupported value: "MountOption": supported values: "Recursive"'


def test_with_selinux_mount_both_policies_are_accepted(svc_server_factory) -> None:
    api = svc_server_factory("--brand-profile=kubernetes", "--feature-gates=SELinuxMount=true").client()
    assert api.request("POST", PODS, body=_pod("MountOption")).status == 201
    causes = _causes(api.request("POST", PODS, body=_pod("Lazy", "q")))
    assert causes[0]["message"] == 'Unsupported value: "Lazy": supported values: "MountOption", "Recursive"'


def test_kubectl_create_of_a_mount_option_pod_is_refused(svc_server_factory, kubectl_binary) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec:\n  securityContext: {seLinuxChangePolicy: MountOption}\n  containers: [{name: c, image: busybox}]\n"
    )
    result = kubectl.run("create", "-f", "-", stdin=manifest, check=False)
    assert result.returncode != 0
    assert f'{FIELD}: Unsupported value: "MountOption": supported values: "Recursive"' in result.stderr
