"""`--svc-api-content-type`: the daemon's controllers talk Protobuf to the API server by default (as
upstream's kube-controller-manager does), and JSON when told so."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.recording_proxy import Exchange, RecordingProxy

PROTOBUF = "application/vnd.svc.protobuf"


def _default_account_made(server: RunningServer, namespace: str) -> None:
    client = server.client()
    assert client.request("POST", "/api/v1/namespaces", body={"metadata": {"name": namespace}}).status == 201
    deadline = time.monotonic() + 20
    path = f"/api/v1/namespaces/{namespace}/serviceaccounts/default"
    while client.request("GET", path).status != 200:
        assert time.monotonic() < deadline, "no default ServiceAccount"
        time.sleep(0.1)


def _created_account(exchanges: list[Exchange], namespace: str) -> Exchange:
    path = f"/api/v1/namespaces/{namespace}/serviceaccounts"
    return next(e for e in exchanges if e.method == "POST" and e.path == path)


def _watches(exchanges: list[Exchange], path: str) -> list[Exchange]:
    return [e for e in exchanges if e.path == path and "watch=true" in e.query]


def test_by_default_built_in_kinds_travel_in_protobuf(
    svc_server: RunningServer,
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    with RecordingProxy(svc_server) as proxy:
        daemon = svc_controller_manager(
            svc_server, "--kubeconfig", str(proxy.kubeconfig(tmp_path)), "--controllers=serviceaccount"
        )
        _default_account_made(svc_server, "protobuf")
        created = _created_account(proxy.exchanges, "protobuf")
        assert (created.content_type, created.accept) == (PROTOBUF, f"{PROTOBUF}, */*")
        assert created.response_type == PROTOBUF
        watches = _watches(proxy.exchanges, "/api/v1/serviceaccounts")
        assert watches and all(w.response_type == f"{PROTOBUF};stream=watch" for w in watches)
        leases = [e for e in proxy.exchanges if "/leases" in e.path and e.method in ("POST", "PUT")]
        assert leases and all(lease.content_type == PROTOBUF for lease in leases)
        daemon.process.terminate()
        daemon.process.wait(timeout=20)


def test_json_keeps_every_request_in_json(
    svc_server: RunningServer,
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    with RecordingProxy(svc_server) as proxy:
        daemon = svc_controller_manager(
            svc_server,
            "--kubeconfig",
            str(proxy.kubeconfig(tmp_path)),
            "--controllers=serviceaccount",
            "--svc-api-content-type=application/json",
        )
        _default_account_made(svc_server, "json")
        created = _created_account(proxy.exchanges, "json")
        assert (created.content_type, created.response_type) == ("application/json", "application/json")
        assert _watches(proxy.exchanges, "/api/v1/serviceaccounts")
        assert not [e for e in proxy.exchanges if "protobuf" in e.accept + e.content_type + e.response_type]
        daemon.process.terminate()
        daemon.process.wait(timeout=20)
