"""The official `kubernetes` Python client against the server's kubernetes profile."""

from __future__ import annotations

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException


@pytest.fixture
def api_client(svc_server_factory):
    server = svc_server_factory("--brand-profile=kubernetes")
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield api
    api.close()


def _deployment(name: str) -> client.V1Deployment:
    labels = {"app": name}
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            replicas=1,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="app", image="nginx")]),
            ),
        ),
    )


def test_namespaces(api_client) -> None:
    core = client.CoreV1Api(api_client)
    created = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="py")))
    assert created.status.phase == "Active"
    assert "py" in [ns.metadata.name for ns in core.list_namespace().items]
    created.metadata.labels = {"team": "x"}
    replaced = core.replace_namespace("py", created)
    assert replaced.metadata.labels["team"] == "x"
    core.delete_namespace("py")


def test_config_maps(api_client) -> None:
    core = client.CoreV1Api(api_client)
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm"), data={"a": "1"})
    core.create_namespaced_config_map("default", body)
    read = core.read_namespaced_config_map("cm", "default")
    assert read.data == {"a": "1"}
    read.data = {"a": "2"}
    assert core.replace_namespaced_config_map("cm", "default", read).data == {"a": "2"}
    assert [c.metadata.name for c in core.list_namespaced_config_map("default").items] == ["cm"]
    core.delete_namespaced_config_map("cm", "default")
    assert core.list_namespaced_config_map("default").items == []


def test_pods(api_client) -> None:
    core = client.CoreV1Api(api_client)
    pod = client.V1Pod(
        metadata=client.V1ObjectMeta(name="p"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")]),
    )
    created = core.create_namespaced_pod("default", pod)
    assert created.status.phase == "Pending"
    read = core.read_namespaced_pod("p", "default")
    read.metadata.labels = {"x": "y"}
    assert core.replace_namespaced_pod("p", "default", read).metadata.labels == {"x": "y"}
    assert [p.metadata.name for p in core.list_pod_for_all_namespaces().items] == ["p"]
    core.delete_namespaced_pod("p", "default")


def test_deployments(api_client) -> None:
    apps = client.AppsV1Api(api_client)
    created = apps.create_namespaced_deployment("default", _deployment("web"))
    assert created.metadata.generation == 1
    read = apps.read_namespaced_deployment("web", "default")
    read.spec.replicas = 3
    assert apps.replace_namespaced_deployment("web", "default", read).spec.replicas == 3
    assert [d.metadata.name for d in apps.list_namespaced_deployment("default").items] == ["web"]
    apps.delete_namespaced_deployment("web", "default")


def test_stale_replace_gets_409(api_client) -> None:
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(
        "default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c"), data={"a": "1"})
    )
    first = core.read_namespaced_config_map("c", "default")
    second = core.read_namespaced_config_map("c", "default")
    first.data = {"a": "2"}
    core.replace_namespaced_config_map("c", "default", first)
    second.data = {"a": "3"}
    with pytest.raises(ApiException) as caught:
        core.replace_namespaced_config_map("c", "default", second)
    assert caught.value.status == 409


def test_missing_object_gets_404_status(api_client) -> None:
    core = client.CoreV1Api(api_client)
    with pytest.raises(ApiException) as caught:
        core.read_namespaced_config_map("missing", "default")
    assert caught.value.status == 404
    import json

    status = json.loads(caught.value.body)
    assert status["kind"] == "Status"
    assert status["reason"] == "NotFound"
    assert status["message"] == 'configmaps "missing" not found'
