"""The `svc_snapshot_server` fixture: set up once, every test starts from the same state."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.embedded_store

PATH = "/api/v1/namespaces/default/configmaps"


@pytest.fixture(scope="session")
def svc_snapshot_setup(svc_session_server) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "from-setup"}}
    assert svc_session_server.client().request("POST", PATH, body=body).status == 201


@pytest.mark.parametrize("run", [1, 2])
def test_each_test_starts_from_the_set_up_state(svc_snapshot_server, run: int) -> None:
    api = svc_snapshot_server.client()
    names = [item["metadata"]["name"] for item in api.request("GET", PATH).json()["items"]]
    assert names == ["from-setup"]
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "scratch"}}
    assert api.request("POST", PATH, body=body).status == 201
