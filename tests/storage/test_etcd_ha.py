"""High availability: two API server processes on a three-member etcd cluster on loopback.

A member killed mid-load loses no acknowledged write and a watch on the other API server misses no
event; a quorum lost gives 503s and a failing `/readyz` until it is back; an API server killed leaves
its clients to the other, which serves everything acknowledged through the first."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable

from svc.client.rest import RestClient
from svc.testing.etcd import EtcdCluster, wait_status
from svc.testing.harness import RunningServer, stop_process
from tests.e2e.kubectl_runner import Kubectl

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
Start = Callable[..., RunningServer]


def _servers(start: Start, cluster: EtcdCluster, *extra: str) -> tuple[RunningServer, RunningServer]:
    flags = ("--brand-profile=kubernetes", *cluster.server_flags(), *extra)
    return start(*flags), start(*flags)


def _configmap(name: str) -> dict:
    return {"metadata": {"name": name}, "data": {"k": name}}


class _Watch:
    """A watch from `version` on a thread of its own, collecting (type, name, resourceVersion)."""

    def __init__(self, client: RestClient, version: str) -> None:
        self.events: list[tuple[str, str, int]] = []
        self._stream = client.stream(
            CONFIGMAPS, params={"watch": "1", "resourceVersion": version, "timeoutSeconds": 120}
        )
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self._stream:
            event = json.loads(line)
            metadata = event["object"]["metadata"]
            self.events.append((event["type"], metadata.get("name", ""), int(metadata.get("resourceVersion", 0))))

    def wait_for(self, names: set[str], timeout: float = 30.0) -> set[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            missing = names - {name for _, name, _ in self.events}
            if not missing:
                return missing
            time.sleep(0.05)
        return names - {name for _, name, _ in self.events}

    def close(self) -> None:
        self._stream.close()
        self._thread.join(timeout=10)


def test_a_member_killed_mid_load_loses_no_acknowledged_write_and_no_watch_event(
    svc_server_process: Start, etcd_cluster: EtcdCluster
) -> None:
    writer, watcher = _servers(svc_server_process, etcd_cluster, "--request-timeout=5s")
    writes, reads = writer.client(timeout=10), watcher.client(timeout=10)
    version = reads.request("GET", CONFIGMAPS).json()["metadata"]["resourceVersion"]
    watch = _Watch(watcher.client(), version)
    acknowledged: dict[str, int] = {}
    refused = 0
    for index in range(120):
        if index == 40:
            # The first member is the one both API servers' gRPC channels picked: they must fail over.
            etcd_cluster.members[0].kill()
        name = f"load-{index}"
        try:
            response = writes.request("POST", CONFIGMAPS, body=_configmap(name))
        except (OSError, http.client.HTTPException):
            writes.close()
            refused += 1
            continue
        if response.status == 201:
            acknowledged[name] = int(response.json()["metadata"]["resourceVersion"])
        else:
            assert response.status in (409, 500, 503, 504), response.body
            refused += 1
    assert len(acknowledged) >= 80, f"only {len(acknowledged)} acknowledged, {refused} refused"

    listed = {item["metadata"]["name"] for item in reads.request("GET", CONFIGMAPS).json()["items"]}
    assert set(acknowledged) <= listed
    assert watch.wait_for(set(acknowledged)) == set()
    seen = [(name, version) for kind, name, version in watch.events if kind == "ADDED"]
    versions = [version for _, version in seen]
    assert versions == sorted(versions), "events out of order"
    assert len({name for name, _ in seen}) == len(seen), "an event delivered twice"
    assert {name: version for name, version in seen if name in acknowledged} == acknowledged

    # Quorum lost: both API servers answer 503 and fail readiness; back, they serve every write.
    etcd_cluster.members[1].kill()
    assert wait_status(reads, "/readyz", 500) == 500
    assert writes.request("POST", CONFIGMAPS, body=_configmap("no-quorum")).status in (500, 503, 504)
    etcd_cluster.members[0].launch()
    etcd_cluster.members[1].launch()
    for member in etcd_cluster.members:
        member.wait_healthy()
    assert wait_status(reads, "/readyz", 200, timeout=60) == 200
    assert wait_status(writes, "/readyz", 200, timeout=60) == 200
    after = writes.request("POST", CONFIGMAPS, body=_configmap("after-quorum"))
    assert after.status == 201
    assert watch.wait_for({"after-quorum"}) == set()
    listed = {item["metadata"]["name"] for item in reads.request("GET", CONFIGMAPS).json()["items"]}
    assert set(acknowledged) | {"after-quorum"} <= listed
    watch.close()


def test_kubectl_writes_through_one_server_and_clients_fail_over_when_it_is_killed(
    svc_server_process: Start, etcd_cluster: EtcdCluster
) -> None:
    from tests.conftest import TOOLS

    first, second = _servers(svc_server_process, etcd_cluster)
    version = second.client().request("GET", CONFIGMAPS).json()["metadata"]["resourceVersion"]
    watch = _Watch(second.client(), version)
    kubectl = Kubectl(str(TOOLS / "kubectl"), first.kubeconfig)
    assert kubectl.run("create", "configmap", "via-kubectl", "--from-literal=k=v").stdout.strip() == (
        "configmap/via-kubectl created"
    )
    assert watch.wait_for({"via-kubectl"}) == set()

    # A client that knows both servers writes through the first until it is killed, then the second.
    clients = [first.client(timeout=5), second.client(timeout=5)]
    acknowledged = []
    for index in range(30):
        if index == 10:
            stop_process(first, kill=True)
        for client in clients:
            try:
                response = client.request("POST", CONFIGMAPS, body=_configmap(f"failover-{index}"))
            except (OSError, http.client.HTTPException):
                client.close()
                continue
            if response.status in (201, 409):
                acknowledged.append(f"failover-{index}")
                break
    assert len(acknowledged) == 30
    assert watch.wait_for(set(acknowledged)) == set()
    listed = {item["metadata"]["name"] for item in clients[1].request("GET", CONFIGMAPS).json()["items"]}
    assert {"via-kubectl", *acknowledged} <= listed
    second_kubectl = Kubectl(str(TOOLS / "kubectl"), second.kubeconfig)
    assert second_kubectl.run("get", "configmap", "via-kubectl", "-o", "jsonpath={.data.k}").stdout == "v"
    watch.close()
