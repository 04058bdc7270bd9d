"""HTTP/2 serving: ALPN, the same application behind every stream, multiplexed watches, stream
limits, resets and GOAWAY; and kubectl 1.35 choosing it."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import h2.settings
import pytest

from svc.testing.harness import RunningServer
from tests.apiserver.h2_client import H2Client

KUBECTL = Path(__file__).resolve().parents[2] / ".tools" / "bin" / "kubectl"


def _wait(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


def test_alpn_offers_h2_and_http11(svc_server: RunningServer) -> None:
    for offered, chosen in ((("h2", "http/1.1"), "h2"), (("http/1.1",), "http/1.1")):
        client = H2Client(svc_server, alpn=offered)
        assert client.protocol == chosen
        client.close()


def test_disable_http2_serving_leaves_only_http11(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = H2Client(svc_server_factory("--disable-http2-serving"), alpn=("h2", "http/1.1"))
    assert client.protocol == "http/1.1"
    client.close()


def test_a_request_over_h2_is_served_and_authenticated_by_client_certificate(svc_server: RunningServer) -> None:
    client = H2Client(svc_server)
    result = client.request("GET", "/api/v1/namespaces/default", headers={"accept": "application/json"})
    client.close()
    assert result.status == 200  # anonymous requests are refused (401) by the default AlwaysAllow set-up
    assert json.loads(result.body)["metadata"]["name"] == "default"
    assert "connection" not in result.headers and "transfer-encoding" not in result.headers


def test_a_request_body_over_h2_creates_an_object(svc_server: RunningServer) -> None:
    client = H2Client(svc_server)
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "over-h2"}, "data": {"a": "b"}})
    result = client.request(
        "POST", "/api/v1/namespaces/default/configmaps", body.encode(), {"content-type": "application/json"}
    )
    client.close()
    assert result.status == 201
    assert svc_server.client().request("GET", "/api/v1/namespaces/default/configmaps/over-h2").status == 200


def test_watches_multiplex_on_one_connection(svc_server: RunningServer) -> None:
    client = H2Client(svc_server)
    watches = [client.start("GET", "/api/v1/namespaces/default/configmaps?watch=true") for _ in range(3)]
    client.pump(lambda: all(client.streams[stream].headers for stream in watches))
    created = client.request(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        json.dumps({"metadata": {"name": "seen"}}).encode(),
        {"content-type": "application/json"},
    )
    assert created.status == 201
    client.pump(lambda: all(b'"seen"' in client.streams[stream].body for stream in watches))
    for stream in watches:
        event = json.loads(client.streams[stream].body.splitlines()[0])
        assert event["type"] == "ADDED" and event["object"]["metadata"]["name"] == "seen"
    client.close()


def test_a_reset_stream_ends_its_watch(svc_server: RunningServer) -> None:
    assert svc_server.server is not None
    watches = svc_server.server.watches
    client = H2Client(svc_server)
    stream = client.start("GET", "/api/v1/namespaces/default/configmaps?watch=true")
    client.pump(lambda: bool(client.streams[stream].headers))
    _wait(lambda: len(watches) == 1)
    client.reset(stream)
    _wait(lambda: len(watches) == 0)
    assert client.request("GET", "/api/v1/namespaces/default").status == 200  # the connection goes on
    client.close()


@pytest.mark.parametrize(("flags", "streams"), [((), 100), (("--http2-max-streams-per-connection=7",), 7)])
def test_max_concurrent_streams_is_advertised(
    svc_server_factory: Callable[..., RunningServer], flags: tuple[str, ...], streams: int
) -> None:
    client = H2Client(svc_server_factory(*flags))
    client.pump(lambda: h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS in client.remote_settings)
    assert client.remote_settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] == streams
    client.close()


def test_goaway_chance_sends_goaway_on_http2(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = H2Client(svc_server_factory("--goaway-chance=0.02"))
    for _ in range(2000):  # P(no GOAWAY in 2000 requests at 2%) < 1e-17
        result = client.request("GET", "/api/v1/namespaces/default")
        if client.goaway:
            break
        assert result.status == 200
    assert client.goaway
    client.close()


def test_kubectl_1_35_uses_http2(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    assert server.server is not None and server.server.http_server is not None
    http = server.server.http_server
    done = subprocess.run(
        [str(KUBECTL), "--kubeconfig", str(server.kubeconfig), "get", "namespaces", "-o", "name"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "namespace/default" in done.stdout
    _wait(lambda: http.http2_requests + sum(c.requests for c in http.http2_connections) > 0)


def test_a_response_larger_than_the_client_window_arrives_whole(svc_server: RunningServer) -> None:
    """The client's 64 KiB windows make the server wait for WINDOW_UPDATEs (flow control)."""
    client = svc_server.client()
    payload = "x" * 2000
    for index in range(100):
        body = {"metadata": {"name": f"big-{index}"}, "data": {"payload": payload}}
        assert client.request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    h2 = H2Client(svc_server)
    result = h2.request("GET", "/api/v1/namespaces/default/configmaps", headers={"accept": "application/json"})
    h2.close()
    assert result.status == 200 and len(result.body) > 200_000
    assert len(json.loads(result.body)["items"]) == 100


def test_goaway_chance_leaves_http11_alone(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = svc_server_factory("--goaway-chance=0.02").client()
    for _ in range(300):  # P(no pick in 300 at 2%) is 0.2%: a GOAWAY-style close would show
        response = client.request("GET", "/api/v1/namespaces/default")
        assert response.status == 200
        assert response.headers.get("Connection") != "close"


def test_an_idle_connection_gets_a_goaway(svc_server: RunningServer) -> None:
    assert svc_server.server is not None
    svc_server.server.serving_limits.idle_timeout = 0.5
    client = H2Client(svc_server)
    assert client.request("GET", "/api/v1/namespaces/default").status == 200
    client.pump(lambda: client.goaway, timeout=10)
    assert client.goaway
    client.close()
