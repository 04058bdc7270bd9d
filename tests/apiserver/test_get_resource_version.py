"""GET of one object with a resourceVersion, as upstream's GetOptions: "0" is served from the watch
cache as it stands, a version once the cache has reached it (504 when it does not in time), and
anything but a number is refused."""

from __future__ import annotations

from svc.testing.harness import RunningServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


def _create(server: RunningServer, name: str) -> dict:
    body = {"metadata": {"name": name}, "data": {"k": "v"}}
    response = server.client().request("POST", CONFIGMAPS, body=body)
    assert response.status == 201
    return response.json()


def test_resource_version_zero_and_a_reached_version_are_served(svc_server: RunningServer) -> None:
    created = _create(svc_server, "rv")
    client = svc_server.client()
    version = created["metadata"]["resourceVersion"]
    for asked in ("0", version):
        response = client.request("GET", f"{CONFIGMAPS}/rv", params={"resourceVersion": asked})
        assert response.status == 200
        assert response.json()["metadata"]["resourceVersion"] == version


def test_a_version_the_cache_does_not_reach_times_out(svc_server: RunningServer) -> None:
    created = _create(svc_server, "ahead")
    ahead = str(int(created["metadata"]["resourceVersion"]) + 1000)
    response = svc_server.client().request("GET", f"{CONFIGMAPS}/ahead", params={"resourceVersion": ahead})
    assert response.status == 504
    assert response.json()["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"


def test_a_resource_version_that_is_not_a_number_is_refused(svc_server: RunningServer) -> None:
    _create(svc_server, "bad")
    response = svc_server.client().request("GET", f"{CONFIGMAPS}/bad", params={"resourceVersion": "x1"})
    assert response.status == 400
    assert response.json()["message"] == 'invalid resource version "x1"'
