"""Namespace deletion with svc-controller-manager beside a real API server, both on the server's
fake clock: content removal, upstream's conditions while finalizers hold content, and the namespace
gone at the end."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

NS = "/api/v1/namespaces"


@pytest.fixture
def server(
    svc_server_factory: Callable[..., RunningServer], svc_controller_manager: Callable[..., RunningControllerManager]
) -> RunningServer:
    running = svc_server_factory("--enable-test-endpoints", "--clock=fake")
    svc_controller_manager(running, "--controllers=namespace")
    return running


def test_content_is_removed_then_the_namespace(server: RunningServer) -> None:
    api = server.client()
    api.request("POST", NS, body={"metadata": {"name": "doomed"}})
    api.request("POST", f"{NS}/doomed/configmaps", body={"metadata": {"name": "inside"}})
    api.request("POST", f"{NS}/doomed/secrets", body={"metadata": {"name": "s"}})
    assert api.request("DELETE", f"{NS}/doomed").status == 200
    # upstream waits 5 s after the deletion before it lists the content
    assert not wait_for(lambda: api.request("GET", f"{NS}/doomed").status == 404, timeout=1)
    server.advance_clock(5)
    assert wait_for(lambda: api.request("GET", f"{NS}/doomed").status == 404, timeout=10)
    assert api.request("GET", f"{NS}/doomed/configmaps").json()["items"] == []
    assert api.request("GET", f"{NS}/doomed/secrets").json()["items"] == []


def test_content_held_by_a_finalizer_is_reported_and_waited_for(server: RunningServer) -> None:
    api = server.client()
    api.request("POST", NS, body={"metadata": {"name": "held"}})
    body = {"metadata": {"name": "kept", "finalizers": ["example.com/hold"]}}
    api.request("POST", f"{NS}/held/configmaps", body=body)
    api.request("DELETE", f"{NS}/held")

    def conditions() -> dict[str, dict]:
        status = api.request("GET", f"{NS}/held").json().get("status") or {}
        return {c["type"]: c for c in status.get("conditions") or []}

    assert not wait_for(conditions, timeout=1)
    server.advance_clock(5)
    assert wait_for(lambda: "NamespaceFinalizersRemaining" in conditions(), timeout=10)
    found = conditions()
    assert found["NamespaceFinalizersRemaining"]["status"] == "True"
    assert found["NamespaceFinalizersRemaining"]["reason"] == "SomeFinalizersRemain"
    assert found["NamespaceFinalizersRemaining"]["message"] == (
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
    )
    assert (
        found["NamespaceContentRemaining"]["message"]
        == "Some resources are remaining: configmaps has 1 resource instances"
    )
    assert found["NamespaceDeletionDiscoveryFailure"]["status"] == "False"
    patch = {"metadata": {"finalizers": None}}
    api.request("PATCH", f"{NS}/held/configmaps/kept", body=patch, content_type="application/merge-patch+json")
    # held content makes the controller look again after 15 / 2 + 1 = 8 s
    assert not wait_for(lambda: api.request("GET", f"{NS}/held").status == 404, timeout=1)
    server.advance_clock(8)
    assert wait_for(lambda: api.request("GET", f"{NS}/held").status == 404, timeout=10)
