"""Objects bigger than etcd takes in one request are refused as upstream refuses them, and not stored."""

from __future__ import annotations

import pytest

EVENTS = "/api/v1/namespaces/default/events"
TOO_LARGE = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "etcdserver: request is too large",
    "code": 500,
}


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _event(name: str, message_size: int) -> dict:
    """An Event: its message has no length limit of its own, so only storage can refuse it."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Test",
        "message": "m" * message_size,
    }


def test_creating_an_object_over_1_5_mib_is_refused_and_not_stored(api) -> None:
    response = api.request("POST", EVENTS, body=_event("big", 1600 * 1024))
    assert response.status == 500
    assert response.json() == TOO_LARGE
    assert api.request("GET", f"{EVENTS}/big").status == 404


def test_growing_an_object_over_1_5_mib_is_refused_and_the_old_one_kept(api) -> None:
    created = api.request("POST", EVENTS, body=_event("e", 10)).json()
    grown = {**created, "message": "m" * (1600 * 1024)}
    response = api.request("PUT", f"{EVENTS}/e", body=grown)
    assert response.status == 500
    assert response.json() == TOO_LARGE
    stored = api.request("GET", f"{EVENTS}/e").json()
    assert stored["message"] == "m" * 10
    assert stored["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_an_object_just_under_the_limit_is_stored(api) -> None:
    response = api.request("POST", EVENTS, body=_event("fits", 1400 * 1024))
    assert response.status == 201
    assert len(api.request("GET", f"{EVENTS}/fits").json()["message"]) == 1400 * 1024
