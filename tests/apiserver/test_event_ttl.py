"""`--event-ttl`: an Event is deleted from the store a TTL after its last write (upstream's etcd
lease), and a watcher sees it go; an Event written again lives on for a new TTL."""

from __future__ import annotations

import time
from collections.abc import Callable

from svc.testing.harness import RunningServer

EVENTS = "/api/v1/namespaces/default/events"
TTL = 2.0


def _event(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p", "apiVersion": "v1"},
        "reason": "Started",
        "message": "container started",
        "source": {"component": "kubelet"},
        "type": "Normal",
    }


def _gone_within(client, name: str, seconds: float) -> float | None:
    """Seconds until GET of the Event answers 404, or None if it is still there after `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if client.request("GET", f"{EVENTS}/{name}").status == 404:
            return time.monotonic() - started
        time.sleep(0.1)
    return None


def test_events_expire_after_the_ttl(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory(f"--event-ttl={TTL:.0f}s")
    client = server.client()
    assert client.request("POST", EVENTS, body=_event("old")).status == 201
    stream = client.stream(EVENTS, params={"watch": "true", "resourceVersion": "0"})
    gone = _gone_within(client, "old", TTL * 5)
    assert gone is not None and gone >= TTL * 0.5
    types = []
    for line in stream:
        types.append(line.split(b'"type":"', 1)[1].split(b'"', 1)[0])
        if types[-1] == b"DELETED":
            break
    stream.close()
    assert types == [b"ADDED", b"DELETED"]


def test_a_rewritten_event_lives_for_a_new_ttl(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory(f"--event-ttl={TTL:.0f}s")
    client = server.client()
    created = client.request("POST", EVENTS, body=_event("kept")).json()
    time.sleep(TTL * 0.6)
    created["count"] = 2
    assert client.request("PUT", f"{EVENTS}/kept", body=created).status == 200
    time.sleep(TTL * 0.6)  # past the first write's deadline
    assert client.request("GET", f"{EVENTS}/kept").status == 200
    assert _gone_within(client, "kept", TTL * 5) is not None


def test_other_objects_do_not_expire(svc_server_factory: Callable[..., RunningServer]) -> None:
    server = svc_server_factory("--event-ttl=1s")
    client = server.client()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "stays"}}
    assert client.request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    time.sleep(2.5)
    assert client.request("GET", "/api/v1/namespaces/default/configmaps/stays").status == 200


def test_events_expire_when_the_fake_clock_passes_the_ttl(svc_server_factory: Callable[..., RunningServer]) -> None:
    """Under `--clock=fake` the TTL is the fake clock's: an hour-long TTL passes without waiting an hour."""
    server = svc_server_factory("--event-ttl=1h", "--enable-test-endpoints", "--clock=fake")
    client = server.client()
    assert client.request("POST", EVENTS, body=_event("faked")).status == 201
    assert _gone_within(client, "faked", 1.0) is None
    assert client.request("POST", "/testing/v1/clock/advance", params={"seconds": "3601"}).status == 200
    assert _gone_within(client, "faked", 10.0) is not None
