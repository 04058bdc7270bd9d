"""Watch semantics (spec 1 §2.5, §4.6 watch table, §4.8, §6) over raw HTTP."""

from __future__ import annotations

import pytest

from tests.apiserver.watch_client import WatchReader

PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _create(api, name: str, **labels: str) -> dict:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}}
    return api.request("POST", PATH, body=body).json()


def _relabel(api, name: str, **labels: str) -> dict:
    patch = {"metadata": {"labels": labels}}
    return api.request("PATCH", f"{PATH}/{name}", body=patch, content_type="application/merge-patch+json").json()


def test_unset_version_sends_current_state_then_changes(svc_server, api) -> None:
    _create(api, "a")
    watch = WatchReader(svc_server.client(), PATH, {})
    assert watch.types_and_names(1) == [("ADDED", "a")]
    _create(api, "b")
    _relabel(api, "a", x="y")
    api.request("DELETE", f"{PATH}/b")
    assert watch.types_and_names(3) == [("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "b")]


def test_version_zero_sends_state_from_cache(svc_server, api) -> None:
    _create(api, "a")
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": "0"})
    assert watch.types_and_names(1) == [("ADDED", "a")]


def test_exact_version_sends_only_later_changes(svc_server, api) -> None:
    first = _create(api, "a")
    _create(api, "b")
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": first["metadata"]["resourceVersion"]})
    assert watch.types_and_names(1) == [("ADDED", "b")]


def test_deleted_event_carries_last_state_and_deletion_version(svc_server, api) -> None:
    created = _create(api, "a", k="v")
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": created["metadata"]["resourceVersion"]})
    api.request("DELETE", f"{PATH}/a")
    event = watch.next()
    assert event["type"] == "DELETED"
    assert event["object"]["metadata"]["labels"] == {"k": "v"}
    assert int(event["object"]["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])


def test_label_selector_transitions_are_added_and_deleted(svc_server, api) -> None:
    created = _create(api, "a", tier="front")
    version = created["metadata"]["resourceVersion"]
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": version, "labelSelector": "tier=back"})
    _relabel(api, "a", tier="back")
    _relabel(api, "a", tier="back", extra="1")
    _relabel(api, "a", tier="front")
    assert watch.types_and_names(3) == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")]


def test_watch_one_object_by_field_selector(svc_server, api) -> None:
    version = _create(api, "a")["metadata"]["resourceVersion"]
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": version, "fieldSelector": "metadata.name=b"})
    _relabel(api, "a", x="1")
    _create(api, "b")
    assert watch.types_and_names(1) == [("ADDED", "b")]


def test_expired_version_gets_error_event_410(svc_server, api) -> None:
    svc_server.server.caches[svc_server.server.options.store_prefix + "/configmaps/"].oldest_revision = 10**6
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": "5"})
    event = watch.next()
    assert event["type"] == "ERROR"
    assert event["object"]["code"] == 410
    assert event["object"]["reason"] == "Expired"
    assert event["object"]["message"].startswith("too old resource version: 5 (")


def test_timeout_seconds_ends_the_stream(svc_server) -> None:
    watch = WatchReader(svc_server.client(), PATH, {"timeoutSeconds": "1"})
    assert watch.next(timeout=5) is None


def test_send_initial_events_ends_with_annotated_bookmark(svc_server, api) -> None:
    _create(api, "a")
    params = {"sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan", "allowWatchBookmarks": "true"}
    watch = WatchReader(svc_server.client(), PATH, params)
    added, bookmark = watch.take(2)
    assert added["type"] == "ADDED"
    assert bookmark["type"] == "BOOKMARK"
    assert bookmark["object"]["kind"] == "ConfigMap"
    assert bookmark["object"]["metadata"]["annotations"] == {"svc.io/initial-events-end": "true"}


def test_send_initial_events_requires_not_older_than(api) -> None:
    response = api.request("GET", PATH, params={"watch": "1", "sendInitialEvents": "true"})
    assert response.status == 400
    assert "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" in response.json()["message"]


def test_periodic_bookmarks(svc_server, api) -> None:
    svc_server.server.bookmark_interval = 0.2
    version = _create(api, "a")["metadata"]["resourceVersion"]
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": version, "allowWatchBookmarks": "true"})
    event = watch.next()
    assert event["type"] == "BOOKMARK"
    assert int(event["object"]["metadata"]["resourceVersion"]) >= int(version)


def test_no_bookmarks_unless_asked(svc_server, api) -> None:
    svc_server.server.bookmark_interval = 0.2
    version = _create(api, "a")["metadata"]["resourceVersion"]
    watch = WatchReader(svc_server.client(), PATH, {"resourceVersion": version, "timeoutSeconds": "1"})
    assert watch.next() is None


def test_watch_without_cache_behaves_the_same(svc_server_factory) -> None:
    server = svc_server_factory("--watch-cache=false")
    api = server.client()
    _create(api, "a")
    watch = WatchReader(server.client(), PATH, {})
    assert watch.types_and_names(1) == [("ADDED", "a")]
    _create(api, "b")
    api.request("DELETE", f"{PATH}/a")
    assert watch.types_and_names(2) == [("ADDED", "b"), ("DELETED", "a")]


def test_all_namespaces_watch(svc_server, api) -> None:
    listed = api.request("GET", "/api/v1/configmaps").json()
    watch = WatchReader(
        svc_server.client(), "/api/v1/configmaps", {"resourceVersion": listed["metadata"]["resourceVersion"]}
    )
    api.request(
        "POST", "/api/v1/namespaces", body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n2"}}
    )
    api.request(
        "POST",
        "/api/v1/namespaces/n2/configmaps",
        body={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
    )
    event = watch.next()
    assert (event["type"], event["object"]["metadata"]["namespace"]) == ("ADDED", "n2")


def test_a_watcher_whose_connection_backs_up_is_ended(svc_server, api, monkeypatch) -> None:
    import time

    monkeypatch.setattr("svc.apiserver.handlers.watch._PUSH_BUFFER_LIMIT", 0)
    cache = svc_server.server.caches[svc_server.server.options.store_prefix + "/configmaps/"]
    _create(api, "first")
    stream = api.stream(PATH, params={"watch": "1", "resourceVersion": "0"})
    lines = iter(stream)
    assert b'"ADDED"' in next(lines)
    assert len(cache._watchers) == 1
    payload = "x" * 200_000
    for index in range(100):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"big-{index}"}, "data": {"v": payload}}
        api.request("POST", PATH, body=body)
        if not cache._watchers:
            break
        time.sleep(0.06)
    assert not cache._watchers
    stream.close()
