"""A delete on etcd decided on the watch cache's copy: one transaction guarded by the copy's mod revision
when the cache is current (upstream's `cachedExistingObject`), the stored object read back from the
failed transaction when it is not, and preconditions and finalizers judged on the object deleted."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from svc.machinery.status import StatusError
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import DeleteOptions, Preconditions
from svc.storage.cached_object import CachedObject
from svc.testing.etcd import EtcdProcess
from svc.testing.harness import RunningServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
Factory = Callable[..., RunningServer]


def _configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _requests(server: RunningServer) -> dict[str, float]:
    """etcd requests this server sent for configmaps, by operation."""
    registry = server.server.metrics.registry
    return {
        operation: registry.get_sample_value(
            "etcd_requests_total", {"operation": operation, "group": "", "resource": "configmaps"}
        )
        or 0.0
        for operation in ("get", "update", "delete")
    }


def _cached(server: RunningServer, name: str, version: str) -> CachedObject:
    """The watch cache's entry for the configmap once it holds `version` (within ten seconds)."""
    cache = server.server.caches[server.server.options.store_prefix + "/configmaps/"]
    key = server.server.options.store_prefix + f"/configmaps/default/{name}"
    deadline = time.monotonic() + 10
    for _ in range(1000):
        entry = cache.state.get(key)
        if (entry is not None and entry.revision == int(version)) or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert entry is not None and entry.revision == int(version), "the watch cache did not catch up"
    return entry


def _delete_with_stale_cache(server: RunningServer, name: str, stale: CachedObject, body: dict | None = None):
    """DELETE through `server` while its watch cache holds `stale` for the object: the stale entry is put
    back on the server's loop right before the handler runs, so no watch event can replace it first."""
    key = server.server.options.store_prefix + f"/configmaps/default/{name}"
    cache = server.server.caches[server.server.options.store_prefix + "/configmaps/"]
    store = server.server.store_for("", "configmaps")

    async def delete():
        cache.state[key] = stale
        preconditions = Preconditions(**(body or {}))
        options = DeleteOptions(preconditions=preconditions)
        return await store.delete("default", name, options, admission=NoAdmission(), user=UserInfo("test"))

    return server.call(delete())


def test_a_delete_of_a_cached_object_is_one_transaction_and_no_read(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    server = svc_server_factory(*etcd_process.server_flags())
    client = server.client()
    created = client.request("POST", CONFIGMAPS, body=_configmap("fast", x="1")).json()
    _cached(server, "fast", created["metadata"]["resourceVersion"])
    before = _requests(server)
    response = client.request("DELETE", f"{CONFIGMAPS}/fast")
    assert response.status == 200
    after = _requests(server)
    assert {op: after[op] - before[op] for op in after} == {"get": 0, "update": 0, "delete": 1}
    assert client.request("GET", f"{CONFIGMAPS}/fast").status == 404


def test_a_stale_cached_copy_falls_back_to_the_stored_object(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    first = svc_server_factory(*etcd_process.server_flags("/shared"))
    second = svc_server_factory(*etcd_process.server_flags("/shared"))
    created = first.client().request("POST", CONFIGMAPS, body=_configmap("stale", x="1")).json()
    stale = _cached(first, "stale", created["metadata"]["resourceVersion"])
    updated = second.client().request("PUT", f"{CONFIGMAPS}/stale", body={**created, "data": {"x": "2"}}).json()
    before = _requests(first)
    deleted, gone = _delete_with_stale_cache(first, "stale", stale)
    after = _requests(first)
    assert gone
    # the object deleted is the one stored (the update through the other server), not the cached copy
    assert deleted["data"] == {"x": "2"}
    assert int(deleted["metadata"]["resourceVersion"]) > int(updated["metadata"]["resourceVersion"])
    # the refused transaction carried the stored object back: no read, a second transaction
    assert {op: after[op] - before[op] for op in after} == {"get": 0, "update": 0, "delete": 2}
    assert first.client().request("GET", f"{CONFIGMAPS}/stale").status == 404


def test_preconditions_on_the_fast_path(svc_server_factory: Factory, etcd_process: EtcdProcess) -> None:
    server = svc_server_factory(*etcd_process.server_flags())
    client = server.client()
    created = client.request("POST", CONFIGMAPS, body=_configmap("pre")).json()
    metadata = created["metadata"]
    _cached(server, "pre", metadata["resourceVersion"])
    wrong = client.request("DELETE", f"{CONFIGMAPS}/pre", body={"preconditions": {"uid": "not-the-uid"}})
    assert wrong.status == 409
    assert wrong.json()["message"].endswith(
        f"Precondition failed: UID in precondition: not-the-uid, UID in object meta: {metadata['uid']}"
    )
    assert client.request("GET", f"{CONFIGMAPS}/pre").status == 200
    before = _requests(server)
    body = {"preconditions": {"uid": metadata["uid"], "resourceVersion": metadata["resourceVersion"]}}
    assert client.request("DELETE", f"{CONFIGMAPS}/pre", body=body).status == 200
    assert _requests(server)["delete"] - before["delete"] == 1


def test_a_precondition_the_stale_copy_fails_is_checked_again_on_the_stored_object(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    first = svc_server_factory(*etcd_process.server_flags("/shared"))
    second = svc_server_factory(*etcd_process.server_flags("/shared"))
    created = first.client().request("POST", CONFIGMAPS, body=_configmap("rv", x="1")).json()
    stale = _cached(first, "rv", created["metadata"]["resourceVersion"])
    updated = second.client().request("PUT", f"{CONFIGMAPS}/rv", body={**created, "data": {"x": "2"}}).json()
    # the precondition names the stored version: the cached copy fails it, the stored object passes
    current = updated["metadata"]["resourceVersion"]
    deleted, gone = _delete_with_stale_cache(first, "rv", stale, {"resource_version": current})
    assert gone and deleted["data"] == {"x": "2"}


def test_a_precondition_the_stale_copy_passes_is_refused_on_the_stored_object(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    first = svc_server_factory(*etcd_process.server_flags("/shared"))
    second = svc_server_factory(*etcd_process.server_flags("/shared"))
    created = first.client().request("POST", CONFIGMAPS, body=_configmap("old", x="1")).json()
    old = created["metadata"]["resourceVersion"]
    stale = _cached(first, "old", old)
    second.client().request("PUT", f"{CONFIGMAPS}/old", body={**created, "data": {"x": "2"}})
    with pytest.raises(StatusError) as refused:
        _delete_with_stale_cache(first, "old", stale, {"resource_version": old})
    assert refused.value.code == 409
    assert "Precondition failed: ResourceVersion in precondition: " + old in str(refused.value)
    assert second.client().request("GET", f"{CONFIGMAPS}/old").json()["data"] == {"x": "2"}


def test_finalizers_gained_since_the_cached_copy_mark_the_object_instead(
    svc_server_factory: Factory, etcd_process: EtcdProcess
) -> None:
    first = svc_server_factory(*etcd_process.server_flags("/shared"))
    second = svc_server_factory(*etcd_process.server_flags("/shared"))
    created = first.client().request("POST", CONFIGMAPS, body=_configmap("fin")).json()
    stale = _cached(first, "fin", created["metadata"]["resourceVersion"])
    with_finalizer = {**created, "metadata": {**created["metadata"], "finalizers": ["example.com/hold"]}}
    assert second.client().request("PUT", f"{CONFIGMAPS}/fin", body=with_finalizer).status == 200
    marked, gone = _delete_with_stale_cache(first, "fin", stale)
    assert not gone
    assert marked["metadata"]["finalizers"] == ["example.com/hold"]
    assert "deletionTimestamp" in marked["metadata"]
    stored = second.client().request("GET", f"{CONFIGMAPS}/fin").json()
    assert "deletionTimestamp" in stored["metadata"]
