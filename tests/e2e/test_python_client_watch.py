"""The official Python client's watch and list+watch against the server's kubernetes profile."""

from __future__ import annotations

import threading

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes")


@pytest.fixture
def core(server):
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield client.CoreV1Api(api)
    api.close()


def _configmap(name: str, value: str = "1") -> client.V1ConfigMap:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"v": value})


def test_stream_sees_added_modified_deleted(core) -> None:
    version = core.list_namespaced_config_map("default").metadata.resource_version

    def writer() -> None:
        core.create_namespaced_config_map("default", _configmap("w"))
        core.patch_namespaced_config_map("w", "default", {"data": {"v": "2"}})
        core.delete_namespaced_config_map("w", "default")

    threading.Thread(target=writer).start()
    seen = []
    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_config_map, "default", resource_version=version, timeout_seconds=10
    ):
        seen.append((event["type"], event["object"].metadata.name, (event["object"].data or {}).get("v")))
        if len(seen) == 3:
            stream.stop()
    assert seen == [("ADDED", "w", "1"), ("MODIFIED", "w", "2"), ("DELETED", "w", "2")]


def test_resume_from_version_after_disconnect(core) -> None:
    first = core.create_namespaced_config_map("default", _configmap("a"))
    core.create_namespaced_config_map("default", _configmap("b"))
    stream = watch.Watch()
    names = []
    for event in stream.stream(
        core.list_namespaced_config_map, "default", resource_version=first.metadata.resource_version, timeout_seconds=5
    ):
        names.append(event["object"].metadata.name)
        stream.stop()
    assert names == ["b"]


def test_expired_version_raises_410(server, core) -> None:
    old = core.create_namespaced_config_map("default", _configmap("a")).metadata.resource_version
    cache = server.server.caches[server.server.options.store_prefix + "/configmaps/"]
    cache.history_seconds = 0
    core.create_namespaced_config_map("default", _configmap("b"))
    core.create_namespaced_config_map("default", _configmap("c"))
    with pytest.raises(ApiException) as caught:
        for _ in watch.Watch().stream(
            core.list_namespaced_config_map, "default", resource_version=old, timeout_seconds=5
        ):
            pass
    assert caught.value.status == 410


def test_informer_style_list_then_watch_keeps_a_correct_cache(core) -> None:
    for index in range(3):
        core.create_namespaced_config_map("default", _configmap(f"c{index}"))
    listed = core.list_namespaced_config_map("default")
    cache = {item.metadata.name: item.data["v"] for item in listed.items}

    def writer() -> None:
        core.patch_namespaced_config_map("c0", "default", {"data": {"v": "changed"}})
        core.delete_namespaced_config_map("c1", "default")
        core.create_namespaced_config_map("default", _configmap("c9", "new"))

    threading.Thread(target=writer).start()
    stream = watch.Watch()
    events = stream.stream(
        core.list_namespaced_config_map,
        "default",
        resource_version=listed.metadata.resource_version,
        timeout_seconds=10,
    )
    for count, event in enumerate(events, start=1):
        name = event["object"].metadata.name
        if event["type"] == "DELETED":
            cache.pop(name)
        else:
            cache[name] = event["object"].data["v"]
        if count == 3:
            stream.stop()
    truth = {item.metadata.name: item.data["v"] for item in core.list_namespaced_config_map("default").items}
    assert cache == truth == {"c0": "changed", "c2": "1", "c9": "new"}
