"""API servers sharing one etcd know of each other as upstream's do: identity Leases in the system namespace
(renewed, the stale ones collected) and the `kubernetes` Service's endpoints kept by master leases."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import aetcd
import pytest

from svc.apiserver.peers.identity import micro_time
from svc.testing.etcd import EtcdProcess
from svc.testing.harness import RunningServer, free_port, stop_process

Factory = Callable[..., RunningServer]
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
ENDPOINTS = "/api/v1/namespaces/default/endpoints/kubernetes"
SLICE = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes"
KUBERNETES = "--brand-profile=kubernetes"


def _advertising(address: str, port: int) -> tuple[str, ...]:
    """Flags of a server advertising a non-loopback address (upstream's endpoints refuse loopback ones)
    while its admin kubeconfig still reaches it on loopback."""
    return (
        f"--secure-port={port}",
        f"--advertise-address={address}",
        f"--kubeconfig-server=https://127.0.0.1:{port}",
    )


def _identity_leases(client, timeout: float = 10.0) -> list[dict]:
    """The identity leases, once there is one (the server writes its own just after it starts)."""
    deadline = time.monotonic() + timeout
    while True:
        items = client.request("GET", LEASES).json()["items"]
        found = [lease for lease in items if lease["metadata"]["name"].startswith("apiserver-")]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _addresses(client) -> list[str]:
    response = client.request("GET", ENDPOINTS)
    if response.status != 200:
        return []
    return [address["ip"] for subset in response.json().get("subsets") or [] for address in subset["addresses"]]


def _wait_addresses(client, wanted: list[str], timeout: float = 20.0) -> list[str]:
    deadline = time.monotonic() + timeout
    found = _addresses(client)
    while found != wanted and time.monotonic() < deadline:
        time.sleep(0.1)
        found = _addresses(client)
    return found


def test_each_server_keeps_an_identity_lease_with_upstreams_name_and_labels(svc_server_factory: Factory) -> None:
    client = svc_server_factory(KUBERNETES).client()
    leases = _identity_leases(client)
    assert len(leases) == 1
    lease = leases[0]
    assert re.fullmatch(r"apiserver-[a-z2-7]{26}", lease["metadata"]["name"])
    labels = lease["metadata"]["labels"]
    assert labels["apiserver.kubernetes.io/identity"] == "kube-apiserver"
    assert labels["kubernetes.io/hostname"]
    assert lease["spec"]["holderIdentity"].startswith(lease["metadata"]["name"] + "_")
    assert lease["spec"]["leaseDurationSeconds"] == 3600


def test_a_renewal_moves_the_renew_time_and_keeps_the_holder(svc_server_factory: Factory) -> None:
    running = svc_server_factory(KUBERNETES)
    client = running.client()
    before = _identity_leases(client)[0]
    peers = running.server.peers if running.server is not None else None
    assert peers is not None and peers.identity is not None
    time.sleep(0.01)
    running.call(peers.identity.renew())
    after = _identity_leases(client)[0]
    assert after["spec"]["renewTime"] > before["spec"]["renewTime"]
    assert after["spec"]["holderIdentity"] == before["spec"]["holderIdentity"]
    assert int(after["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])


def test_expired_identity_leases_are_collected_and_no_others(svc_server_factory: Factory) -> None:
    running = svc_server_factory(KUBERNETES)
    client = running.client()
    identity = {"apiserver.kubernetes.io/identity": "kube-apiserver"}
    long_ago = micro_time(datetime.now(UTC) - timedelta(hours=2))
    recently = micro_time(datetime.now(UTC) - timedelta(minutes=2))

    def lease(name: str, renewed: str, labels: dict, namespace: str = "kube-system") -> None:
        body = {
            "metadata": {"name": name, "labels": labels},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 3600, "renewTime": renewed},
        }
        path = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"
        assert client.request("POST", path, body=body).status == 201

    lease("expired", long_ago, identity)
    lease("fresh", recently, identity)
    lease("not-an-identity", long_ago, {})
    lease("elsewhere", long_ago, identity, namespace="default")
    peers = running.server.peers if running.server is not None else None
    assert peers is not None and peers.identity is not None
    assert running.call(peers.identity.collect_garbage()) == ["expired"]
    names = {item["metadata"]["name"] for item in client.request("GET", LEASES).json()["items"]}
    assert {"fresh", "not-an-identity"} <= names
    assert "expired" not in names
    assert client.request("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/elsewhere").status == 200


def test_the_endpoints_list_every_live_server_by_master_lease(
    svc_server_process: Callable[..., RunningServer], etcd_process: EtcdProcess
) -> None:
    first_port, second_port = free_port(), free_port()
    first = svc_server_process(
        KUBERNETES, *etcd_process.server_flags(), *_advertising("10.9.0.1", first_port), port=first_port
    )
    second = svc_server_process(
        KUBERNETES, *etcd_process.server_flags(), *_advertising("10.9.0.2", second_port), port=second_port
    )
    client = first.client()
    assert _wait_addresses(client, ["10.9.0.1", "10.9.0.2"]) == ["10.9.0.1", "10.9.0.2"]
    slice_endpoints = client.request("GET", SLICE).json()["endpoints"]
    assert sorted(endpoint["addresses"][0] for endpoint in slice_endpoints) == ["10.9.0.1", "10.9.0.2"]

    async def master_leases() -> list[str]:
        async with aetcd.Client("127.0.0.1", etcd_process.client_port) as etcd:
            return sorted(kv.key.decode() for kv in await etcd.get_prefix(b"/registry/masterleases/"))

    assert asyncio.run(master_leases()) == ["/registry/masterleases/10.9.0.1", "/registry/masterleases/10.9.0.2"]
    # A server shutting down takes itself out at once (a crashed one drops out when its lease expires).
    stop_process(second)
    assert _addresses(client) == ["10.9.0.1"]
    assert asyncio.run(master_leases()) == ["/registry/masterleases/10.9.0.1"]


def test_master_count_lists_both_servers_and_a_stopping_one_takes_itself_out(
    svc_server_process: Callable[..., RunningServer], etcd_process: EtcdProcess
) -> None:
    counted = ("--endpoint-reconciler-type=master-count", "--apiserver-count=2")
    first_port, second_port = free_port(), free_port()
    first = svc_server_process(
        KUBERNETES, *etcd_process.server_flags(), *counted, *_advertising("10.9.0.1", first_port), port=first_port
    )
    client = first.client()
    assert _wait_addresses(client, ["10.9.0.1"]) == ["10.9.0.1"]
    second = svc_server_process(
        KUBERNETES, *etcd_process.server_flags(), *counted, *_advertising("10.9.0.2", second_port), port=second_port
    )
    assert _wait_addresses(client, ["10.9.0.1", "10.9.0.2"]) == ["10.9.0.1", "10.9.0.2"]
    assert _wait_addresses(second.client(), ["10.9.0.1", "10.9.0.2"]) == ["10.9.0.1", "10.9.0.2"]

    async def master_leases() -> list[bytes]:
        async with aetcd.Client("127.0.0.1", etcd_process.client_port) as etcd:
            return [kv.key for kv in await etcd.get_prefix(b"/registry/masterleases/")]

    assert asyncio.run(master_leases()) == []
    stop_process(second)
    assert _addresses(client) == ["10.9.0.1"]


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--endpoint-reconciler-type=dns", "Reconciler not implemented: dns"),
        ("--apiserver-count=0", "--apiserver-count should be a positive number, but value '0' provided"),
    ],
)
def test_bad_peer_flags_are_refused(flag: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from svc.apiserver.options import parse_options

    with pytest.raises(SystemExit):
        parse_options([flag])
    assert message in capsys.readouterr().err


def test_identity_leases_expire_and_are_collected_on_the_fake_clock(svc_server_factory: Factory) -> None:
    """Under `--clock=fake` a lease's renew time, its expiry and the collector's period are the fake clock's."""
    client = svc_server_factory(KUBERNETES, "--enable-test-endpoints", "--clock=fake").client()
    now = client.request("GET", "/testing/v1/clock").json()["time"]
    body = {
        "metadata": {"name": "stale", "labels": {"apiserver.kubernetes.io/identity": "kube-apiserver"}},
        "spec": {"holderIdentity": "stale", "leaseDurationSeconds": 3600, "renewTime": now},
    }
    assert client.request("POST", LEASES, body=body).status == 201
    own = _identity_leases(client)
    assert own and own[0]["spec"]["renewTime"][:4] == now[:4]
    advance = client.request("POST", "/testing/v1/clock/advance", params={"seconds": str(2 * 3600)})
    assert advance.status == 200
    deadline = time.monotonic() + 10
    while client.request("GET", f"{LEASES}/stale").status != 404 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.request("GET", f"{LEASES}/stale").status == 404
