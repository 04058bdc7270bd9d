"""Under `--clock=fake` the server's timers follow the clock, not the wall: watch timeouts and
bookmarks, request deadlines, and the node simulator's Lease renewals and pod run times fire when a
test advances it."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest

from svc.nodes.registration import RENEW_INTERVAL
from tests.apiserver.watch_client import WatchReader
from tests.nodes.test_simulator import eventually, get_pod, pod, running
from tests.testing_toolkit.test_clock import FAKE, PATH


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory(*FAKE)


@pytest.fixture
def api(server):
    return server.client()


def _create(api, name: str) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    assert api.request("POST", PATH, body=body).status == 201


def test_a_watch_ends_when_the_clock_passes_its_timeout(server, api) -> None:
    watch = WatchReader(server.client(), PATH, {"timeoutSeconds": "600"})
    _create(api, "seen")
    assert watch.types_and_names(1) == [("ADDED", "seen")]
    server.advance_clock(601)
    assert watch.next() is None


def test_a_bookmark_is_sent_when_the_clock_passes_the_interval(server, api) -> None:
    watch = WatchReader(server.client(), PATH, {"allowWatchBookmarks": "true"})
    _create(api, "seen")
    assert watch.types_and_names(1) == [("ADDED", "seen")]
    server.advance_clock(61)  # the bookmark interval is a minute
    assert watch.next()["type"] == "BOOKMARK"


def test_the_watch_cache_window_closes_with_the_clock(server, api) -> None:
    """The cache keeps five minutes of events: five fake minutes later a watch from before is 410 Gone."""
    _create(api, "old")
    since = api.request("GET", PATH).json()["metadata"]["resourceVersion"]
    _create(api, "kept")
    server.advance_clock(301)
    _create(api, "new")  # the window is trimmed as events arrive
    event = WatchReader(server.client(), PATH, {"resourceVersion": since}).next()
    assert (event["type"], event["object"]["code"]) == ("ERROR", 410)


def test_a_request_deadline_passes_when_the_clock_does(server, api) -> None:
    """A GET held up by a (real-time) delay fault is answered 504 as soon as the fake clock passes
    its `?timeout=`, long before that deadline or the delay would pass in real time."""
    response = api.request(
        "PUT", "/testing/v1/faults", body={"rules": [{"verbs": ["get"], "names": ["slow"], "delay": {"seconds": 120}}]}
    )
    assert response.status == 200, response.body
    answers: list[int] = []
    client = server.client()
    asking = threading.Thread(
        target=lambda: answers.append(client.request("GET", f"{PATH}/slow", params={"timeout": "60s"}).status),
        daemon=True,
    )
    asking.start()
    for _ in range(30):  # the request may not have reached its deadline's timer at the first advance
        server.advance_clock(61)
        asking.join(0.1)
        if not asking.is_alive():
            break
    assert answers == [504]


def _renew_time(api, path: str) -> str | None:
    response = api.request("GET", path)
    return response.json()["spec"].get("renewTime") if response.status == 200 else None


def test_a_simulated_nodes_lease_renews_when_the_clock_advances(svc_server_factory, svc_nodes) -> None:
    server = svc_server_factory(*FAKE, "--brand-profile=kubernetes")
    svc_nodes(server, count=1)
    api = server.client()
    lease = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-0"
    first = "2030-01-01T00:00:00.000000Z"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _renew_time(api, lease) != first:
        time.sleep(0.05)  # the Lease is written just after the node turns Ready
    assert _renew_time(api, lease) == first
    advanced_to: list[str] = []
    for _ in range(50):  # the renewal loop may not be asleep yet at the first advance
        now = server.advance_clock(RENEW_INTERVAL)
        advanced_to.append(datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
        time.sleep(0.1)
        if (renewed := _renew_time(api, lease)) != first:
            break
    assert renewed in advanced_to


def test_a_simulated_pod_finishes_when_the_clock_passes_its_run_time(svc_server_factory, svc_nodes) -> None:
    server = svc_server_factory(*FAKE)
    svc_nodes(server, "--run-time=1h", count=1)
    api = server.client()
    body = pod("job", restartPolicy="Never")
    assert api.request("POST", "/api/v1/namespaces/default/pods", body=body).status == 201
    assert eventually(lambda: running(api, "job"))
    finished = False
    for _ in range(5):  # the kubelet may not be waiting on the run time yet at the first advance
        server.advance_clock(3600)
        if finished := eventually(lambda: get_pod(api, "job")["status"]["phase"] == "Succeeded", seconds=2):
            break
    assert finished
