"""Replay (`--watch-from-history`): a watch older than the watch cache's window is served from the
store's revision log until compacted. A restart empties the cache's window, so the changes made
before it are out of the cache but still in the log."""

from __future__ import annotations

from pathlib import Path

import pytest

from svc.testing.harness import in_process_server
from tests.apiserver.watch_client import WatchReader

PATH = "/api/v1/namespaces/default/configmaps"
FLAGS = ("--enable-test-endpoints",)


def _history(data_dir: Path) -> str:
    """Create, change and delete ConfigMaps; returns the resourceVersion from before the changes."""
    with in_process_server(data_dir, *FLAGS) as running:
        api = running.client()
        start = api.request("GET", PATH).json()["metadata"]["resourceVersion"]
        for name in ("a", "b"):
            body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "1"}}
            assert api.request("POST", PATH, body=body).status == 201
        patched = api.request(
            "PATCH", f"{PATH}/a", body={"data": {"k": "2"}}, content_type="application/merge-patch+json"
        )
        assert patched.status == 200
        assert api.request("DELETE", f"{PATH}/b").status == 200
        running.close_clients()
        return start


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str]:
    data_dir = tmp_path / "server"
    return data_dir, _history(data_dir)


def test_an_old_watch_replays_the_log_after_a_restart(history) -> None:
    data_dir, start = history
    with in_process_server(data_dir, *FLAGS, "--watch-from-history") as running:
        watch = WatchReader(running.client(), PATH, {"resourceVersion": start})
        events = [(event["type"], event["object"]["metadata"]["name"]) for event in watch.take(4)]
        assert events == [("ADDED", "a"), ("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "b")]
        running.close_clients()


def test_the_replayed_watch_goes_on_with_new_changes(history) -> None:
    data_dir, start = history
    with in_process_server(data_dir, *FLAGS, "--watch-from-history") as running:
        api = running.client()
        watch = WatchReader(running.client(), PATH, {"resourceVersion": start})
        watch.take(4)
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
        assert api.request("POST", PATH, body=body).status == 201
        assert watch.types_and_names(1) == [("ADDED", "c")]
        running.close_clients()


def test_without_the_flag_an_old_watch_is_410_gone(history) -> None:
    data_dir, start = history
    with in_process_server(data_dir, *FLAGS) as running:
        event = WatchReader(running.client(), PATH, {"resourceVersion": start}).next()
        assert event is not None and event["type"] == "ERROR"
        assert event["object"]["code"] == 410
        running.close_clients()


def test_a_compacted_revision_is_410_gone_even_with_the_flag(history) -> None:
    data_dir, start = history
    with in_process_server(data_dir, *FLAGS, "--watch-from-history") as running:
        assert running.client().request("POST", "/testing/v1/compact").status == 200
        event = WatchReader(running.client(), PATH, {"resourceVersion": start}).next()
        assert event is not None and event["type"] == "ERROR"
        assert event["object"]["code"] == 410
        assert event["object"]["message"].startswith("too old resource version")
        running.close_clients()
