"""Every built-in kind served by default reads back into the official Python client's models.

The client checks required fields when it deserialises (`client_side_validation`), so an object
missing a field Go always writes (a ReplicaSet's `status.replicas`) fails here with ValueError.
One server serves the whole module; each kind gets its own objects.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from kubernetes import client

from svc.api.brand import KUBERNETES
from svc.api.resources import Resource, ResourceSet
from svc.testing.harness import RunningServer, in_process_server
from tests.builtin_objects import OBJECTS, STATUSES, manifest

_NAMESPACE = "default"
_RESOURCES = [
    resource
    for resource in ResourceSet(KUBERNETES)
    if {"create", "get", "list"} <= resource.verbs and resource.definition
]


def _id(resource: Resource) -> str:
    return f"{resource.api_version}/{resource.kind}"


def _model(definition: str) -> str:
    """The client's model class of an OpenAPI definition: `V1ReplicaSet`, or `CoreV1Event` where the
    plain name is taken by another group's kind."""
    *package, version, kind = definition.split(".")
    group = package[3] if package[:3] == ["io", "k8s", "api"] else ""
    plain = version.capitalize() + kind
    prefixed = (group.capitalize() if group else "") + plain
    return prefixed if group and hasattr(client, prefixed) else plain


def _collection(resource: Resource) -> str:
    root = f"/apis/{resource.api_version}" if resource.group else f"/api/{resource.version}"
    namespace = f"/namespaces/{_NAMESPACE}" if resource.namespaced else ""
    return f"{root}{namespace}/{resource.name}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with in_process_server(tmp_path_factory.mktemp("strict") / "data", "--brand-profile=kubernetes") as running:
        yield running


@pytest.fixture(scope="module")
def models() -> client.ApiClient:
    api = client.ApiClient()
    assert api.configuration.client_side_validation
    return api


def _read_as(models: client.ApiClient, body: bytes, model: str) -> Any:
    return models.deserialize(body.decode(), model, "application/json")


def _create(server: RunningServer, resource: Resource, name: str) -> dict:
    group = resource.upstream_group.split(".")[0] or "core"
    obj = manifest(resource.api_version, resource.kind, name=f"{name}-{group}-{resource.version}")
    created = server.client().request("POST", _collection(resource), body=obj)
    assert created.status == 201, created.body
    return orjson.loads(created.body)


def _only(obj: dict) -> dict[str, str]:
    """List parameters selecting just this object (the versions of HorizontalPodAutoscalers, and the
    two Event APIs, share storage: each lists the other's objects too)."""
    return {"fieldSelector": f"metadata.name={obj['metadata']['name']}"}


def test_the_fixture_table_covers_every_kind() -> None:
    assert {(r.api_version, r.kind) for r in _RESOURCES} <= set(OBJECTS)


@pytest.mark.parametrize("resource", _RESOURCES, ids=_id)
def test_created_object_reads_as_the_client_model(server: RunningServer, models: client.ApiClient, resource) -> None:
    created = _create(server, resource, "plain")
    rest = server.client()
    model = _model(resource.definition)
    path = f"{_collection(resource)}/{created['metadata']['name']}"
    got = rest.request("GET", path)
    listed = rest.request("GET", _collection(resource), params=_only(created))
    assert isinstance(_read_as(models, got.body, model), getattr(client, model))
    items = _read_as(models, listed.body, _model(resource.definition + "List")).items
    assert [item.metadata.name for item in items] == [created["metadata"]["name"]]


_WITH_STATUS = [r for r in _RESOURCES if "status" in r.subresources and (r.api_version, r.kind) in STATUSES]


@pytest.mark.parametrize("resource", _WITH_STATUS, ids=_id)
def test_written_status_reads_as_the_client_model(server: RunningServer, models: client.ApiClient, resource) -> None:
    created = _create(server, resource, "status")
    rest = server.client()
    path = f"{_collection(resource)}/{created['metadata']['name']}"
    status = STATUSES[resource.api_version, resource.kind]
    written = rest.request("PUT", path + "/status", body={**created, "status": status})
    if written.status == 409:  # a controller in the API server (ValidatingAdmissionPolicy status) wrote first
        written = rest.request("PUT", path + "/status", body={**rest.request("GET", path).json(), "status": status})
    assert written.status == 200, written.body
    model = _model(resource.definition)
    _read_as(models, written.body, model)
    _read_as(models, rest.request("GET", path).body, model)
    listed = rest.request("GET", _collection(resource), params=_only(created))
    assert len(_read_as(models, listed.body, _model(resource.definition + "List")).items) == 1
