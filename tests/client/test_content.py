"""The client in Protobuf mode (the controller manager's default): built-in kinds travel in Protobuf and
come back as the same dicts JSON gives; custom resources and patches stay JSON."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svc.api.brand import PROFILES
from svc.client.aio import ApiError, AsyncRestClient
from svc.client.content import ContentConfig
from svc.client.kubeconfig import load_kubeconfig
from svc.testing.harness import RunningServer
from svc.wire.protobuf import encode_watch_event

SVC = PROFILES["svc"]
PROTOBUF = ContentConfig.for_content_type("application/vnd.svc.protobuf", SVC)
NS = "/api/v1/namespaces/default"
T = TypeVar("T")
Obj = dict[str, Any]
_names = itertools.count()
LABEL_VALUES = st.from_regex(r"[a-z0-9]{0,8}", fullmatch=True)

CRD = {
    "apiVersion": "apiextensions.svc/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            }
        ],
    },
}


def _with_clients(server: RunningServer, scenario: Callable[[AsyncRestClient, AsyncRestClient], Awaitable[T]]) -> T:
    """Run `scenario(protobuf_client, json_client)` against the server."""

    async def run() -> T:
        protobuf = AsyncRestClient(load_kubeconfig(server.kubeconfig), content=PROTOBUF)
        plain = AsyncRestClient(load_kubeconfig(server.kubeconfig))
        try:
            return await scenario(protobuf, plain)
        finally:
            await protobuf.close()
            await plain.close()

    return asyncio.run(run())


def test_the_brands_protobuf_type_chooses_protobuf_and_anything_else_json() -> None:
    assert PROTOBUF.protobuf == "application/vnd.svc.protobuf"
    assert not ContentConfig.for_content_type("application/json", SVC).protobuf
    assert not ContentConfig.for_content_type("application/vnd.kubernetes.protobuf", SVC).protobuf
    upstream = ContentConfig.for_content_type("application/vnd.kubernetes.protobuf", PROFILES["kubernetes"])
    assert upstream.protobuf == "application/vnd.kubernetes.protobuf"


def test_built_in_paths_ask_for_protobuf_then_anything_as_client_go() -> None:
    assert PROTOBUF.accept(f"{NS}/pods/p") == "application/vnd.svc.protobuf, */*"
    assert PROTOBUF.accept("/apis/rbac.authorization.svc/v1/clusterroles") == "application/vnd.svc.protobuf, */*"
    assert PROTOBUF.accept("/apis/example.com/v1/namespaces/default/widgets") == "application/json"
    assert PROTOBUF.accept("/apis") == "application/json"
    assert ContentConfig().accept(f"{NS}/pods") == "application/json"


def test_metadata_requests_ask_for_protobuf_first_as_the_metadata_client() -> None:
    assert PROTOBUF.metadata_accept("PartialObjectMetadataList", "meta.svc") == (
        "application/vnd.svc.protobuf;as=PartialObjectMetadataList;g=meta.svc;v=v1,"
        "application/json;as=PartialObjectMetadataList;g=meta.svc;v=v1,application/json"
    )
    assert ContentConfig().metadata_accept("PartialObjectMetadata", "meta.svc") == (
        "application/json;as=PartialObjectMetadata;g=meta.svc;v=v1"
    )


def test_bodies_of_built_in_kinds_are_protobuf_and_others_json() -> None:
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    data, content_type = PROTOBUF.body(config_map, "application/json")
    assert content_type == "application/vnd.svc.protobuf"
    assert data.startswith(b"k8s\x00")
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    assert PROTOBUF.body(widget, "application/json")[1] == "application/json"
    patch = {"metadata": {"labels": {"a": "b"}}}
    assert PROTOBUF.body(config_map, "application/apply-patch+yaml")[1] == "application/apply-patch+yaml"
    merge = "application/merge-patch+json"
    assert PROTOBUF.body(patch, merge) == (b'{"metadata":{"labels":{"a":"b"}}}', merge)


def test_watch_frames_split_anywhere_decode_to_the_json_streams_events() -> None:
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "reason": "Expired",
        "code": 410,
    }
    config_map = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "a", "resourceVersion": "7"}}
    stream = encode_watch_event("ADDED", config_map) + encode_watch_event("ERROR", status)

    async def events(chunk_size: int) -> list[Obj]:
        async def chunks() -> AsyncIterator[bytes]:
            for start in range(0, len(stream), chunk_size):
                yield stream[start : start + chunk_size]

        return [event async for event in PROTOBUF.watch_events(chunks())]

    expected = [{"type": "ADDED", "object": config_map}, {"type": "ERROR", "object": status}]
    for chunk_size in (1, 3, 5, len(stream)):
        assert asyncio.run(events(chunk_size)) == expected


def _objects(name: str) -> list[tuple[str, Obj]]:
    return [
        (
            f"{NS}/configmaps",
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "labels": {"a": "b"}},
                "data": {"k": "v"},
            },
        ),
        (
            f"{NS}/pods",
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": name},
                "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]},
            },
        ),
        (
            "/apis/apps/v1/namespaces/default/deployments",
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": name},
                "spec": {
                    "replicas": 0,
                    "selector": {"matchLabels": {"app": name}},
                    "template": {
                        "metadata": {"labels": {"app": name}},
                        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
                    },
                },
            },
        ),
        (
            "/apis/rbac.authorization.svc/v1/namespaces/default/roles",
            {
                "apiVersion": "rbac.authorization.svc/v1",
                "kind": "Role",
                "metadata": {"name": name},
                "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}],
            },
        ),
    ]


def test_create_get_and_list_of_built_in_kinds_equal_the_json_results(svc_server: RunningServer) -> None:
    async def scenario(protobuf: AsyncRestClient, plain: AsyncRestClient) -> None:
        for collection, body in _objects("round-trip"):
            created = await protobuf.create(collection, body)
            path = f"{collection}/round-trip"
            assert created == await plain.get(path)
            assert await protobuf.get(path) == await plain.get(path)
            listed = await protobuf.get(collection)
            assert listed["items"] and listed == await plain.get(collection)
            created["metadata"]["labels"] = {"updated": "yes"}
            updated = await protobuf.update(path, created)
            assert updated == await plain.get(path)

    _with_clients(svc_server, scenario)


def test_watch_events_equal_the_json_stream(svc_server: RunningServer) -> None:
    async def events(client: AsyncRestClient, collection: str, version: str) -> list[Obj]:
        params = {"resourceVersion": version, "timeoutSeconds": "1", "allowWatchBookmarks": "true"}
        return [event async for event in client.watch(collection, params) if event["type"] != "BOOKMARK"]

    async def scenario(protobuf: AsyncRestClient, plain: AsyncRestClient) -> None:
        for collection, body in _objects("watched"):
            start = (await plain.get(collection))["metadata"]["resourceVersion"]
            created = await protobuf.create(collection, body)
            await protobuf.delete(f"{collection}/watched")
            seen, expected = await asyncio.gather(events(protobuf, collection, start), events(plain, collection, start))
            assert [event["type"] for event in seen][:1] == ["ADDED"]
            assert seen == expected
            assert seen[0]["object"]["metadata"]["uid"] == created["metadata"]["uid"]

    _with_clients(svc_server, scenario)


def test_a_refusal_in_protobuf_is_an_api_error_with_the_status(svc_server: RunningServer) -> None:
    async def scenario(protobuf: AsyncRestClient, plain: AsyncRestClient) -> None:
        with pytest.raises(ApiError) as refused:
            await protobuf.get(f"{NS}/configmaps/missing")
        assert (refused.value.code, refused.value.reason) == (404, "NotFound")
        assert refused.value.status["message"] == 'configmaps "missing" not found'

    _with_clients(svc_server, scenario)


def test_custom_resources_stay_json_through_the_same_client(svc_server: RunningServer) -> None:
    async def scenario(protobuf: AsyncRestClient, plain: AsyncRestClient) -> None:
        await plain.create("/apis/apiextensions.svc/v1/customresourcedefinitions", CRD)
        collection = "/apis/example.com/v1/namespaces/default/widgets"
        body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 3}}
        deadline = time.monotonic() + 10
        while True:
            try:
                created = await protobuf.create(collection, body)
                break
            except ApiError:  # until the new resource is served
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        assert created["spec"] == {"size": 3}
        assert await protobuf.get(collection) == await plain.get(collection)
        patched = await protobuf.patch(f"{collection}/w", {"spec": {"size": 4}})
        assert patched["spec"] == {"size": 4}

    _with_clients(svc_server, scenario)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    labels=st.dictionaries(
        st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.from_regex(r"[a-z0-9]{0,8}", fullmatch=True)
    ),
    data=st.dictionaries(
        st.from_regex(r"[a-zA-Z0-9._-]{1,12}", fullmatch=True).filter(lambda key: key not in (".", "..")),
        st.text(max_size=20),
    ),
)
def test_any_config_map_reads_the_same_in_both_formats(
    svc_server: RunningServer, labels: dict[str, str], data: dict[str, str]
) -> None:
    name = f"cm-{next(_names)}"

    async def scenario(protobuf: AsyncRestClient, plain: AsyncRestClient) -> None:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}, "data": data}
        created = await protobuf.create(f"{NS}/configmaps", body)
        assert created == await plain.get(f"{NS}/configmaps/{name}")
        assert created.get("data", {}) == data

    _with_clients(svc_server, scenario)
