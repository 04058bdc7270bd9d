"""The official Python client's ApiextensionsV1Api and CustomObjectsApi over a CRD (issue 14)."""

from __future__ import annotations

import time

import pytest
from kubernetes import client, config, watch

from tests.apiserver.crd.crds import WIDGET_CRD


@pytest.fixture
def api_client(svc_server_factory):
    server = svc_server_factory("--brand-profile=kubernetes")
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield api
    api.close()


def _install(api_client) -> None:
    extensions = client.ApiextensionsV1Api(api_client)
    extensions.create_custom_resource_definition(WIDGET_CRD)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        current = extensions.read_custom_resource_definition("widgets.example.com")
        if any(c.type == "Established" and c.status == "True" for c in current.status.conditions or []):
            return
        time.sleep(0.05)
    raise AssertionError("the CRD was not Established")


def test_custom_objects_api_covers_the_verbs(api_client) -> None:
    _install(api_client)
    objects = client.CustomObjectsApi(api_client)
    args = ("example.com", "v1", "default", "widgets")
    body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"replicas": 1}}
    created = objects.create_namespaced_custom_object(*args, body)
    assert created["metadata"]["generation"] == 1
    patched = objects.patch_namespaced_custom_object(*args, "a", {"spec": {"color": "red"}})
    assert patched["spec"] == {"replicas": 1, "color": "red"}
    status = objects.patch_namespaced_custom_object_status(*args, "a", {"status": {"replicas": 1}})
    assert status["status"] == {"replicas": 1}
    scale = objects.patch_namespaced_custom_object_scale(*args, "a", {"spec": {"replicas": 3}})
    assert scale["spec"]["replicas"] == 3
    listed = objects.list_namespaced_custom_object(*args)
    assert [item["metadata"]["name"] for item in listed["items"]] == ["a"]
    stream = watch.Watch().stream(objects.list_namespaced_custom_object, *args, resource_version="0", timeout_seconds=1)
    events = [(event["type"], event["object"]["metadata"]["name"]) for event in stream]
    assert events == [("ADDED", "a")]
    objects.delete_namespaced_custom_object(*args, "a")
    assert objects.list_namespaced_custom_object(*args)["items"] == []
