"""Snapshots, restore and the revision log through the `/testing/v1/` admin endpoints."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from svc.apiserver.snapshot_restore import restore_snapshot
from svc.client.aio import AsyncRestClient
from svc.client.informer import Informer, RestListerWatcher
from svc.client.kubeconfig import load_kubeconfig
from tests.apiserver.watch_client import WatchReader

pytestmark = pytest.mark.embedded_store

PATH = "/api/v1/namespaces/default/configmaps"
FLAG = "--enable-test-endpoints"


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory(FLAG)


@pytest.fixture
def api(server):
    return server.client()


def _create(api, name: str) -> dict:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    response = api.request("POST", PATH, body=body, params={"fieldManager": "tester"})
    assert response.status == 201, response.body
    return response.json()


def _names(api) -> list[str]:
    return [item["metadata"]["name"] for item in api.request("GET", PATH).json()["items"]]


def test_restore_brings_back_the_saved_objects(api) -> None:
    _create(api, "kept")
    assert api.request("POST", "/testing/v1/snapshots/base").status == 201
    _create(api, "later")
    api.request("DELETE", f"{PATH}/kept")
    restored = api.request("POST", "/testing/v1/snapshots/base/restore")
    assert restored.status == 200, restored.body
    assert _names(api) == ["kept"]
    assert api.request("GET", f"{PATH}/later").status == 404


def test_saved_snapshots_are_listed_by_name(api) -> None:
    assert api.request("GET", "/testing/v1/snapshots").json() == {"items": []}
    api.request("POST", "/testing/v1/snapshots/second")
    api.request("POST", "/testing/v1/snapshots/first")
    assert api.request("GET", "/testing/v1/snapshots").json() == {"items": ["first", "second"]}


def test_resource_versions_after_a_restore_are_newer_than_any_before(api) -> None:
    first = _create(api, "a")
    api.request("POST", "/testing/v1/snapshots/base")
    later = _create(api, "b")
    api.request("POST", "/testing/v1/snapshots/base/restore")
    listed = api.request("GET", PATH).json()
    assert int(listed["metadata"]["resourceVersion"]) > int(later["metadata"]["resourceVersion"])
    restored = listed["items"][0]
    assert int(restored["metadata"]["resourceVersion"]) > int(later["metadata"]["resourceVersion"])
    stale = {**first, "data": {"k": "stale"}}
    assert api.request("PUT", f"{PATH}/a", body=stale).status == 409


def test_a_watch_open_across_a_restore_ends_with_410_gone(server, api) -> None:
    _create(api, "a")
    api.request("POST", "/testing/v1/snapshots/base")
    rv = _create(api, "b")["metadata"]["resourceVersion"]
    watch = WatchReader(server.client(), PATH, {"resourceVersion": rv})
    api.request("POST", "/testing/v1/snapshots/base/restore")
    event = watch.next()
    assert event is not None and event["type"] == "ERROR"
    assert event["object"]["code"] == 410


def test_watch_from_the_restored_list_sees_later_changes(server, api) -> None:
    api.request("POST", "/testing/v1/snapshots/empty")
    _create(api, "gone")
    api.request("POST", "/testing/v1/snapshots/empty/restore")
    rv = api.request("GET", PATH).json()["metadata"]["resourceVersion"]
    watch = WatchReader(server.client(), PATH, {"resourceVersion": rv})
    _create(api, "fresh")
    assert watch.types_and_names(1) == [("ADDED", "fresh")]


def test_revisions_list_who_changed_what(api) -> None:
    start = api.request("GET", PATH).json()["metadata"]["resourceVersion"]
    created = _create(api, "a")
    api.request("DELETE", f"{PATH}/a")
    log = api.request("GET", "/testing/v1/revisions", params={"from": start}).json()
    changes = [(item["type"], item["name"]) for item in log["items"] if item["key"].endswith("/default/a")]
    assert changes == [("ADDED", "a"), ("DELETED", "a")]
    added = next(item for item in log["items"] if item["type"] == "ADDED" and item.get("name") == "a")
    assert added["manager"] == "tester"
    assert added["revision"] == int(created["metadata"]["resourceVersion"])


def _as(user: str) -> dict[str, str]:
    return {"Impersonate-User": user, "Impersonate-Group": "system:masters"}


def test_revisions_name_the_user_each_change_was_made_as(api) -> None:
    start = api.request("GET", PATH).json()["metadata"]["resourceVersion"]
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    assert api.request("POST", PATH, body=body, headers=_as("bob")).status == 201
    assert api.request("DELETE", f"{PATH}/a", headers=_as("alice")).status == 200
    log = api.request("GET", "/testing/v1/revisions", params={"from": start}).json()
    users = [(item["type"], item.get("user")) for item in log["items"] if item["key"].endswith("/default/a")]
    assert users == [("ADDED", "bob"), ("DELETED", "alice")]


def test_the_servers_own_writes_name_no_user(api) -> None:
    log = api.request("GET", "/testing/v1/revisions", params={"from": 0}).json()
    namespace = next(item for item in log["items"] if item.get("kind") == "Namespace" and item["name"] == "default")
    assert "user" not in namespace


def test_compact_on_demand_makes_older_versions_gone(api) -> None:
    old = _create(api, "a")["metadata"]["resourceVersion"]
    _create(api, "b")
    assert api.request("POST", "/testing/v1/compact").status == 200
    response = api.request("GET", PATH, params={"resourceVersion": old, "resourceVersionMatch": "Exact"})
    assert response.status == 410


def test_vacuum_reports_the_file_sizes(api) -> None:
    body = api.request("POST", "/testing/v1/vacuum").json()
    assert body["bytesAfter"] > 0


def test_non_admin_is_refused_with_403(api) -> None:
    response = api.request("POST", "/testing/v1/snapshots/base", headers={"Impersonate-User": "alice"})
    assert response.status == 403
    assert response.json()["message"] == 'forbidden: User "alice" cannot post path "/testing/v1/snapshots/base"'
    assert api.request("POST", "/testing/v1/snapshots/base/restore").status == 404


def test_endpoints_are_refused_without_the_flag(svc_server) -> None:
    response = svc_server.client().request("POST", "/testing/v1/snapshots/base")
    assert response.status == 403
    assert "disabled" in response.json()["message"]


def test_restore_of_an_unknown_snapshot_is_404(api) -> None:
    response = api.request("POST", "/testing/v1/snapshots/never/restore")
    assert response.status == 404
    assert response.json()["kind"] == "Status"


@pytest.mark.parametrize(
    ("method", "path", "params"),
    [
        ("POST", "/testing/v1/snapshots/Bad_Name", {}),
        ("GET", "/testing/v1/revisions", {"from": "x"}),
        ("GET", "/testing/v1/revisions", {"from": "5", "to": "2"}),
        ("POST", "/testing/v1/compact", {"revision": "99999999"}),
    ],
)
def test_bad_input_is_400(api, method, path, params) -> None:
    response = api.request(method, path, params=params)
    assert response.status == 400, response.body
    assert response.json()["reason"] == "BadRequest"


def test_a_file_that_is_not_a_snapshot_is_400_and_changes_nothing(server, api) -> None:
    _create(api, "a")
    (server.data_dir / "snapshots").mkdir(exist_ok=True)
    (server.data_dir / "snapshots" / "junk.db").write_bytes(b"not a database" * 100)
    response = api.request("POST", "/testing/v1/snapshots/junk/restore")
    assert response.status == 400
    assert _names(api) == ["a"]


def test_a_refused_restore_leaves_open_watches_running(server, api) -> None:
    rv = _create(api, "a")["metadata"]["resourceVersion"]
    watch = WatchReader(server.client(), PATH, {"resourceVersion": rv})
    (server.data_dir / "snapshots").mkdir(exist_ok=True)
    (server.data_dir / "snapshots" / "junk.db").write_bytes(b"not a database" * 100)
    assert api.request("POST", "/testing/v1/snapshots/junk/restore").status == 400
    _create(api, "b")
    assert watch.types_and_names(1) == [("ADDED", "b")]


def test_unknown_path_is_404(api) -> None:
    assert api.request("GET", "/testing/v1/nothing").status == 404


def test_an_informer_relists_after_a_restore_and_matches_the_snapshot(server, api) -> None:
    _create(api, "kept")
    api.request("POST", "/testing/v1/snapshots/base")

    async def scenario() -> tuple[list[str], int]:
        client = AsyncRestClient(load_kubeconfig(server.kubeconfig))
        informer = Informer(RestListerWatcher(client, PATH))
        task = asyncio.create_task(informer.run())
        try:
            await asyncio.wait_for(informer.synced.wait(), 10)
            await asyncio.to_thread(_create, api, "later")
            await _until(lambda: informer.get("default/later") is not None)
            await asyncio.to_thread(api.request, "POST", "/testing/v1/snapshots/base/restore")
            await _until(lambda: informer.keys() == ["default/kept"])
            return informer.keys(), informer.lists
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await client.close()

    keys, lists = asyncio.run(scenario())
    assert keys == ["default/kept"]
    assert lists == 2


async def _until(condition, limit: float = 10.0) -> None:
    for _ in range(int(limit / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached in time")


def test_a_snapshot_that_cannot_be_written_is_503_with_the_reason(server, api) -> None:
    (server.data_dir / "snapshots" / "blocked.db").mkdir(parents=True)
    response = api.request("POST", "/testing/v1/snapshots/blocked")
    assert response.status == 503
    assert response.json()["message"].startswith("could not save the snapshot: ")


def _cache_and_store(server) -> tuple[dict, dict]:
    """Every cached object decoded, and the same keys read from the store, of the ConfigMaps."""
    running = server.server
    prefix = running.options.store_prefix + "/configmaps/"
    cache = running.caches[prefix]

    async def read() -> dict:
        return {item["metadata"]["name"]: item for item in (await running.objects.list(prefix)).items}

    stored = server.call(read())
    cached = {key.rsplit("/", 1)[1]: item.decode() for key, item in cache.state.items()}
    return cached, stored


def test_the_restored_caches_hold_what_the_store_holds(server, api) -> None:
    _create(api, "plain")
    # A data key spelled like the metadata field: its resourceVersion is not the one to move.
    tricky = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "tricky"}}
    tricky["data"] = {"resourceVersion": "1"}
    assert api.request("POST", PATH, body=tricky).status == 201
    api.request("POST", "/testing/v1/snapshots/base")
    api.request("PATCH", f"{PATH}/plain", body={"data": {"k": "changed"}}, content_type="application/merge-patch+json")
    _create(api, "later")
    for _ in range(2):
        api.request("POST", "/testing/v1/snapshots/base/restore")
        cached, stored = _cache_and_store(server)
        assert cached == stored
        assert sorted(name for name, item in stored.items() if item["metadata"]["namespace"] == "default") == [
            "plain",
            "tricky",
        ]
        assert stored["tricky"]["data"] == {"resourceVersion": "1"}
        _create(api, "between")


class _LaggingRevision:
    """The store, but reporting a current revision behind the real one, as when a write lands
    between the restore's prediction of its offset and the restore itself."""

    def __init__(self, backend) -> None:
        self._backend = backend

    async def current_revision(self) -> int:
        return await self._backend.current_revision() - 3

    async def restore_snapshot(self, path):
        return await self._backend.restore_snapshot(path)


def test_the_caches_are_right_when_the_predicted_offset_misses(server, api) -> None:
    _create(api, "kept")
    api.request("POST", "/testing/v1/snapshots/base")
    for name in ("x", "y", "z", "w"):
        _create(api, name)
    running = server.server
    path = running.options.data_dir / "snapshots" / "base.db"
    restore = restore_snapshot(_LaggingRevision(running.backend), running.caches, running.snapshot_images, "base", path)
    server.call(restore)
    cached, stored = _cache_and_store(server)
    assert cached == stored
    assert "kept" in stored and "x" not in stored
