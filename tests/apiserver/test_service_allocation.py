"""Service cluster IPs and node ports: allocated, checked, given back, kept across restarts (issue 12 part 4)."""

from __future__ import annotations

import dataclasses
import ipaddress
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from svc.apiserver import default_service
from svc.client.kubeconfig import load_kubeconfig
from svc.client.rest import RestClient

SERVICES = "/api/v1/namespaces/default/services"
ADDRESSES = "/apis/networking.svc/v1/ipaddresses"


def _service(name: str, kind: str = "ClusterIP", **spec) -> dict:
    body_spec = {"type": kind, "ports": [{"port": 80}], **spec}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": body_spec}


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _create(api, name: str, kind: str = "ClusterIP", **spec):
    return api.request("POST", SERVICES, body=_service(name, kind, **spec))


def _addresses(api) -> set[str]:
    return {item["metadata"]["name"] for item in api.request("GET", ADDRESSES).json()["items"]}


def test_a_cluster_ip_comes_from_the_range_with_its_family(api) -> None:
    spec = _create(api, "web").json()["spec"]
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.0.0.0/24")
    assert spec["clusterIPs"] == [spec["clusterIP"]]
    assert (spec["ipFamilies"], spec["ipFamilyPolicy"]) == (["IPv4"], "SingleStack")
    address = api.request("GET", f"{ADDRESSES}/{spec['clusterIP']}").json()
    assert address["spec"]["parentRef"] == {"resource": "services", "namespace": "default", "name": "web"}


def test_a_requested_cluster_ip_is_honoured_once(api) -> None:
    assert _create(api, "one", clusterIP="10.0.0.10").json()["spec"]["clusterIP"] == "10.0.0.10"
    taken = _create(api, "two", clusterIP="10.0.0.10")
    assert taken.status == 422
    assert taken.json()["message"] == (
        'Service "two" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.10"]: '
        "failed to allocate IP 10.0.0.10: provided IP is already allocated"
    )


def test_a_cluster_ip_outside_the_range_is_refused(api) -> None:
    answer = _create(api, "far", clusterIP="10.1.0.5")
    assert answer.status == 422
    assert answer.json()["details"]["causes"][0]["message"] == (
        'Invalid value: ["10.1.0.5"]: failed to allocate IP 10.1.0.5: the provided IP (10.1.0.5) is not in the '
        "valid range. The range of valid IPs is 10.0.0.0/24"
    )


def test_a_headless_service_gets_no_ip(api) -> None:
    spec = _create(api, "headless", clusterIP="None").json()["spec"]
    assert spec["clusterIPs"] == ["None"]
    assert _addresses(api) == {"10.0.0.1"}


def test_node_ports_come_from_the_range(api) -> None:
    port = _create(api, "np", "NodePort").json()["spec"]["ports"][0]["nodePort"]
    assert 30000 <= port <= 32767


def test_a_taken_or_outside_node_port_is_refused(api) -> None:
    assert _create(api, "one", "NodePort", ports=[{"port": 80, "nodePort": 30080}]).status == 201
    taken = _create(api, "two", "NodePort", ports=[{"port": 80, "nodePort": 30080}])
    assert taken.status == 422
    assert taken.json()["message"] == (
        'Service "two" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated'
    )
    outside = _create(api, "three", "NodePort", ports=[{"port": 80, "nodePort": 80}])
    assert outside.json()["details"]["causes"][0]["message"] == (
        "Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767"
    )


def test_a_refused_create_gives_its_allocations_back(api) -> None:
    answer = _create(api, "one", "NodePort", clusterIP="10.0.0.20", ports=[{"port": 80, "nodePort": 30080}])
    assert answer.status == 201
    refused = _create(api, "two", "NodePort", clusterIP="10.0.0.21", ports=[{"port": 80, "nodePort": 30080}])
    assert refused.status == 422
    assert "10.0.0.21" not in _addresses(api)
    assert _create(api, "three", clusterIP="10.0.0.21").status == 201


def test_delete_gives_the_ip_and_node_port_back(api) -> None:
    _create(api, "one", "NodePort", clusterIP="10.0.0.30", ports=[{"port": 80, "nodePort": 30090}])
    assert api.request("DELETE", f"{SERVICES}/one").status == 200
    assert "10.0.0.30" not in _addresses(api)
    again = _create(api, "two", "NodePort", clusterIP="10.0.0.30", ports=[{"port": 80, "nodePort": 30090}])
    assert again.status == 201


def test_a_dry_run_allocates_nothing(api) -> None:
    answer = api.request("POST", SERVICES, body=_service("dry", "NodePort"), params={"dryRun": "All"})
    assert answer.status == 201
    assert answer.json()["spec"]["clusterIP"]
    assert _addresses(api) == {"10.0.0.1"}


def test_an_update_without_the_ip_keeps_it_and_a_change_is_refused(api) -> None:
    created = _create(api, "web", "NodePort").json()
    replacement = _service("web", "NodePort")
    replacement["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    updated = api.request("PUT", f"{SERVICES}/web", body=replacement).json()
    assert updated["spec"]["clusterIP"] == created["spec"]["clusterIP"]
    assert updated["spec"]["ports"][0]["nodePort"] == created["spec"]["ports"][0]["nodePort"]
    updated["spec"]["clusterIP"] = updated["spec"]["clusterIPs"][0] = "10.0.0.99"
    refused = api.request("PUT", f"{SERVICES}/web", body=updated)
    assert refused.status == 422
    assert "may not change once set" in refused.json()["message"]


def test_changing_to_cluster_ip_gives_the_node_port_back(api) -> None:
    created = _create(api, "web", "NodePort", ports=[{"port": 80, "nodePort": 30100}]).json()
    patch = {"spec": {"type": "ClusterIP"}}
    changed = api.request("PATCH", f"{SERVICES}/web", body=patch, content_type="application/merge-patch+json").json()
    assert "nodePort" not in changed["spec"]["ports"][0]
    assert changed["spec"]["clusterIP"] == created["spec"]["clusterIP"]
    assert _create(api, "other", "NodePort", ports=[{"port": 80, "nodePort": 30100}]).status == 201


def test_a_local_load_balancer_gets_a_health_check_node_port(api) -> None:
    spec = _create(api, "lb", "LoadBalancer", externalTrafficPolicy="Local").json()["spec"]
    assert 30000 <= spec["healthCheckNodePort"] <= 32767
    assert spec["healthCheckNodePort"] != spec["ports"][0]["nodePort"]


def test_concurrent_creates_never_share_an_ip(svc_server_factory) -> None:
    server = svc_server_factory("--service-cluster-ip-range=10.96.0.0/28")

    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(lambda index: server.client().request("POST", SERVICES, body=_service(f"s{index}")), range(16))
        )
    created = [answer.json()["spec"]["clusterIP"] for answer in answers if answer.status == 201]
    assert len(created) == 13  # 14 usable addresses, the first held by the default service
    assert len(set(created)) == 13
    full = [answer.json()["message"] for answer in answers if answer.status == 422]
    assert all(message.endswith("range is full") for message in full)


def test_the_default_service_points_at_the_server(svc_server_factory) -> None:
    """The slice names the advertise address (a loopback one is refused, as upstream refuses endpoints there)."""
    server = svc_server_factory("--advertise-address=192.0.2.10")
    port = int(server.url.rsplit(":", 1)[1])
    loopback = f"https://127.0.0.1:{port}"
    api = RestClient(dataclasses.replace(load_kubeconfig(server.kubeconfig), server=loopback))
    service = api.request("GET", f"{SERVICES}/svc").json()
    assert service["spec"]["clusterIP"] == "10.0.0.1"
    assert service["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": port}]
    slice_ = api.request("GET", "/apis/discovery.svc/v1/namespaces/default/endpointslices/svc").json()
    assert slice_["endpoints"][0]["addresses"] == ["192.0.2.10"]
    assert slice_["ports"][0]["port"] == port
    api.close()


def test_the_default_service_comes_back(svc_server, api) -> None:
    assert api.request("DELETE", f"{SERVICES}/svc").status == 200
    server = svc_server.server
    port = int(svc_server.url.rsplit(":", 1)[1])
    svc_server.call(default_service.reconcile(server, port, "127.0.0.1", ["127.0.0.1"]))
    assert api.request("GET", f"{SERVICES}/svc").json()["spec"]["clusterIP"] == "10.0.0.1"


def test_allocations_survive_a_restart(svc_server_process, tmp_path) -> None:
    from svc.testing.harness import stop_process

    data_dir = tmp_path / "data"
    first = svc_server_process(data_dir=data_dir)
    api = first.client()
    assert _create(api, "one", "NodePort", clusterIP="10.0.0.40", ports=[{"port": 80, "nodePort": 30200}]).status == 201
    stop_process(first)
    api = svc_server_process(data_dir=data_dir).client()
    assert _create(api, "two", clusterIP="10.0.0.40").status == 422
    assert _create(api, "three", "NodePort", ports=[{"port": 80, "nodePort": 30200}]).status == 422


def test_the_range_flags_are_used(svc_server_factory) -> None:
    api = svc_server_factory(
        "--service-cluster-ip-range=10.96.0.0/16", "--service-node-port-range=31000-31001"
    ).client()
    assert api.request("GET", f"{SERVICES}/svc").json()["spec"]["clusterIP"] == "10.96.0.1"
    spec = _create(api, "np", "NodePort").json()["spec"]
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.96.0.0/16")
    assert spec["ports"][0]["nodePort"] in (31000, 31001)


@pytest.mark.parametrize(
    "flag",
    [
        "--service-cluster-ip-range=10.0.0.0/33",
        "--service-cluster-ip-range=10.0.0.0/24,10.1.0.0/24",
        "--service-node-port-range=30000-20000",
    ],
)
def test_bad_range_flags_exit_2_with_one_line(flag) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "svc.apiserver", flag], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
