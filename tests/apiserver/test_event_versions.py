"""core/v1 and events.k8s.io/v1 Events are one storage with conversion (issue 12 part 6)."""

from __future__ import annotations

import pytest

from tests.apiserver.watch_client import WatchReader

CORE = "/api/v1/namespaces/default/events"
NEW = "/apis/events.k8s.io/v1/namespaces/default/events"
REGARDING = {"kind": "Pod", "namespace": "default", "name": "p", "uid": "u-1", "apiVersion": "v1"}


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def _new_event(name: str = "e") -> dict:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:05.000000Z"},
        "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-1",
        "action": "Scale",
        "reason": "Scaled",
        "regarding": REGARDING,
        "note": "scaled to 3",
        "type": "Normal",
    }


def _core_event(name: str = "c") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": REGARDING,
        "reason": "Started",
        "message": "container started",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2026-01-01T00:00:00Z",
        "lastTimestamp": "2026-01-01T00:00:09Z",
        "count": 4,
        "type": "Warning",
        "reportingComponent": "kubelet",
        "reportingInstance": "node-1",
    }


def test_an_event_created_through_events_k8s_io_reads_as_a_core_event(api) -> None:
    assert api.request("POST", NEW, body=_new_event()).status == 201
    core = api.request("GET", f"{CORE}/e").json()
    assert core["apiVersion"] == "v1"
    assert core["involvedObject"] == REGARDING
    assert core["message"] == "scaled to 3"
    assert (core["reportingComponent"], core["reportingInstance"]) == ("example.com/ctl", "ctl-1")
    assert core["series"] == {"count": 2, "lastObservedTime": "2026-01-01T00:00:05.000000Z"}
    assert (core["eventTime"], core["action"], core["reason"], core["type"]) == (
        "2026-01-01T00:00:00.000000Z",
        "Scale",
        "Scaled",
        "Normal",
    )
    for name in ("regarding", "note", "deprecatedSource", "reportingController", "deprecatedCount"):
        assert name not in core


def test_a_core_event_reads_through_events_k8s_io(api) -> None:
    assert api.request("POST", CORE, body=_core_event()).status == 201
    new = api.request("GET", f"{NEW}/c").json()
    assert new["apiVersion"] == "events.k8s.io/v1"
    assert new["regarding"] == REGARDING
    assert new["note"] == "container started"
    assert new["deprecatedSource"] == {"component": "kubelet", "host": "node-1"}
    assert (new["deprecatedFirstTimestamp"], new["deprecatedLastTimestamp"], new["deprecatedCount"]) == (
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:09Z",
        4,
    )
    assert (new["reportingController"], new["reportingInstance"]) == ("kubelet", "node-1")
    assert new["eventTime"] is None
    for name in ("involvedObject", "message", "source", "firstTimestamp", "count", "reportingComponent"):
        assert name not in new


def test_both_lists_hold_events_of_both_apis(api) -> None:
    api.request("POST", NEW, body=_new_event("a"))
    api.request("POST", CORE, body=_core_event("b"))
    for path, note in ((CORE, "message"), (NEW, "note")):
        items = api.request("GET", path).json()["items"]
        assert [item["metadata"]["name"] for item in items] == ["a", "b"]
        assert all(note in item for item in items)


def test_a_round_trip_through_the_other_api_changes_nothing(api) -> None:
    created = api.request("POST", NEW, body=_new_event()).json()
    core = api.request("GET", f"{CORE}/e").json()
    assert (
        api.request("PUT", f"{CORE}/e", body=core).json()["metadata"]["resourceVersion"]
        == (created["metadata"]["resourceVersion"])
    )
    again = api.request("GET", f"{NEW}/e").json()
    assert {k: v for k, v in again.items() if k != "metadata"} == {k: v for k, v in created.items() if k != "metadata"}


def test_an_update_through_one_api_shows_in_the_other(api) -> None:
    # Through the core API (events.k8s.io makes the note immutable, as upstream).
    api.request("POST", NEW, body=_new_event())
    core = api.request("GET", f"{CORE}/e").json()
    core["message"] = "changed"
    assert api.request("PUT", f"{CORE}/e", body=core).status == 200
    assert api.request("GET", f"{NEW}/e").json()["note"] == "changed"


def test_a_watch_through_either_api_converts_events_of_the_other(api) -> None:
    core_watch = WatchReader(api, CORE, {"resourceVersion": "0"})
    new_watch = WatchReader(api, NEW, {"resourceVersion": "0"})
    api.request("POST", NEW, body=_new_event("a"))
    api.request("POST", CORE, body=_core_event("b"))
    core_events = core_watch.take(2)
    new_events = new_watch.take(2)
    assert [(e["type"], e["object"]["apiVersion"]) for e in core_events] == [("ADDED", "v1")] * 2
    assert [e["object"]["message"] for e in core_events] == ["scaled to 3", "container started"]
    assert [(e["type"], e["object"]["apiVersion"]) for e in new_events] == [("ADDED", "events.k8s.io/v1")] * 2
    assert [e["object"]["note"] for e in new_events] == ["scaled to 3", "container started"]


def test_a_watch_from_now_converts_the_initial_state(api) -> None:
    api.request("POST", CORE, body=_core_event())
    watch = WatchReader(api, NEW, {})
    (event,) = watch.take(1)
    assert (event["type"], event["object"]["regarding"]) == ("ADDED", REGARDING)


def test_deleting_through_either_api_removes_the_one_event(api) -> None:
    api.request("POST", NEW, body=_new_event())
    assert api.request("DELETE", f"{CORE}/e").status == 200
    assert api.request("GET", f"{NEW}/e").status == 404
