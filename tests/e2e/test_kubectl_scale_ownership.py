"""`kubectl scale` and a server-side apply of a Scale through `/scale` (official Python client) own the Deployment's
`spec.replicas` as upstream records it (issue 12 part 6): an `Update` or `Apply` entry of the writer in
`apps/v1` under the subresource `scale`, and the applier that created the Deployment loses the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kubernetes import client as k8s
from kubernetes import config
from kubernetes.client.exceptions import ApiException

from tests.e2e.kubectl_runner import Kubectl

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
"""
SCALE = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "web"}, "spec": {"replicas": 4}}
APPLY = "application/apply-patch+yaml"


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("apply", "--server-side", "--field-manager=deployer", "-f", "-", stdin=MANIFEST)
    return kubectl


def _live(kubectl: Kubectl) -> dict:
    return json.loads(kubectl.run("get", "deployment", "web", "-o", "json", "--show-managed-fields").stdout)


def _replicas_owners(live: dict) -> list[dict]:
    return [e for e in live["metadata"]["managedFields"] if "f:replicas" in e["fieldsV1"].get("f:spec", {})]


def test_kubectl_scale_owns_replicas_through_the_scale_subresource(kubectl: Kubectl) -> None:
    kubectl.run("scale", "deployment", "web", "--replicas=3")
    live = _live(kubectl)
    assert live["spec"]["replicas"] == 3
    assert _replicas_owners(live) == [
        {
            "manager": "kubectl",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
            "subresource": "scale",
        }
    ]


def test_a_server_side_apply_of_a_scale_conflicts_then_owns_replicas_when_forced(
    kubectl: Kubectl, tmp_path: Path
) -> None:
    # kubectl cannot send a Scale (it finds no resource for the kind); the official Python client can.
    configuration = k8s.Configuration()
    config.load_kube_config(str(kubectl.kubeconfig), client_configuration=configuration, temp_file_path=str(tmp_path))
    with k8s.ApiClient(configuration) as api_client:
        api = k8s.AppsV1Api(api_client)

        def apply(**options: object) -> object:
            return api.patch_namespaced_deployment_scale(
                "web", "default", SCALE, field_manager="autoscaler", _content_type=APPLY, **options
            )

        with pytest.raises(ApiException) as refused:
            apply()
        assert refused.value.status == 409
        assert 'conflict with \\"deployer\\"' in refused.value.body
        assert apply(force=True).spec.replicas == 4
    live = _live(kubectl)
    assert live["spec"]["replicas"] == 4
    (owner,) = _replicas_owners(live)
    assert (owner["manager"], owner["operation"], owner["apiVersion"], owner["subresource"]) == (
        "autoscaler",
        "Apply",
        "apps/v1",
        "scale",
    )
