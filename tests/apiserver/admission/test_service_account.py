"""ServiceAccount admission: default account, must-exist rule, token volume, image pull secrets."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import create, created, pod, service_account

MOUNT_PATH = "/var/run/secrets/svc.io/serviceaccount"


@pytest.fixture
def svc_server(svc_server_factory: Callable[..., RunningServer]) -> RunningServer:
    """The test harness turns ServiceAccount admission off unless asked for it."""
    return svc_server_factory("--enable-admission-plugins=ServiceAccount")


def test_pod_without_account_runs_as_default_with_the_projected_token_volume(svc_server: RunningServer) -> None:
    client = svc_server.client()
    created(client, "serviceaccounts", service_account())
    stored = created(
        client, "pods", pod("p", {"name": "c", "image": "nginx"}, initContainers=[{"name": "i", "image": "busybox"}])
    )
    spec = stored["spec"]
    assert spec["serviceAccountName"] == "default"
    volume = spec["volumes"][-1]
    assert re.fullmatch(r"svc-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}", volume["name"])
    assert volume["projected"] == {
        "defaultMode": 420,
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "svc-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {
                "downwardAPI": {
                    "items": [
                        {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                    ]
                }
            },
        ],
    }
    mount = {"name": volume["name"], "readOnly": True, "mountPath": MOUNT_PATH}
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert spec["initContainers"][0]["volumeMounts"] == [mount]


def test_missing_account_is_forbidden_with_upstreams_message(svc_server: RunningServer) -> None:
    response = create(svc_server.client(), "pods", pod("p", serviceAccountName="robot"))
    assert response.status == 403
    assert response.json()["message"] == (
        'pods "p" is forbidden: error looking up service account default/robot: serviceaccount "robot" not found'
    )


def test_automount_false_on_the_account_skips_the_volume(svc_server: RunningServer) -> None:
    client = svc_server.client()
    created(client, "serviceaccounts", service_account("quiet", automountServiceAccountToken=False))
    spec = created(client, "pods", pod("p", serviceAccountName="quiet"))["spec"]
    assert "volumes" not in spec
    assert "volumeMounts" not in spec["containers"][0]


def test_pod_preference_overrides_the_account(svc_server: RunningServer) -> None:
    client = svc_server.client()
    created(client, "serviceaccounts", service_account("quiet", automountServiceAccountToken=False))
    spec = created(client, "pods", pod("p", serviceAccountName="quiet", automountServiceAccountToken=True))["spec"]
    assert spec["containers"][0]["volumeMounts"][0]["mountPath"] == MOUNT_PATH


def test_existing_mount_at_the_token_path_is_kept(svc_server: RunningServer) -> None:
    client = svc_server.client()
    created(client, "serviceaccounts", service_account())
    own = {"name": "mine", "mountPath": MOUNT_PATH}
    container = {"name": "c", "image": "nginx", "volumeMounts": [own]}
    spec = created(client, "pods", pod("p", container, volumes=[{"name": "mine", "emptyDir": {}}]))["spec"]
    assert spec["containers"][0]["volumeMounts"] == [own]
    assert [v["name"] for v in spec["volumes"]] == ["mine"]


def test_image_pull_secrets_come_from_the_account(svc_server: RunningServer) -> None:
    client = svc_server.client()
    created(client, "serviceaccounts", service_account(imagePullSecrets=[{"name": "registry"}]))
    assert created(client, "pods", pod())["spec"]["imagePullSecrets"] == [{"name": "registry"}]


def test_enforced_mountable_secrets_reject_other_secrets(svc_server: RunningServer) -> None:
    client = svc_server.client()
    account = service_account(secrets=[{"name": "allowed"}])
    account["metadata"]["annotations"] = {"svc.io/enforce-mountable-secrets": "true"}
    created(client, "serviceaccounts", account)
    response = create(client, "pods", pod("p", volumes=[{"name": "s", "secret": {"secretName": "other"}}]))
    assert response.status == 403
    assert response.json()["message"] == (
        'pods "p" is forbidden: volume with secret.secretName="other" is not allowed because service account '
        "default does not reference that secret"
    )
