"""Services: upstream's SetDefaults_Service (kubernetes/kubernetes pkg/apis/core/v1/defaults.go) and
its cases in defaults_test.go (session affinity, target port, traffic policies, load balancer ports)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.defaults.support import defaulted


def _spec(**spec: Any) -> dict[str, Any]:
    return defaulted("", "Service", {"spec": spec})["spec"]


def test_an_empty_service_is_a_cluster_ip_service_without_affinity() -> None:
    assert _spec() == {"sessionAffinity": "None", "type": "ClusterIP", "internalTrafficPolicy": "Cluster"}


def test_no_affinity_drops_the_affinity_config() -> None:
    assert "sessionAffinityConfig" not in _spec(sessionAffinityConfig={"clientIP": {"timeoutSeconds": 5}})


def test_client_ip_affinity_keeps_its_timeout() -> None:
    config = {"clientIP": {"timeoutSeconds": 5}}
    assert _spec(sessionAffinity="ClientIP", sessionAffinityConfig=config)["sessionAffinityConfig"] == config


@pytest.mark.parametrize("config", [None, {}, {"clientIP": {}}])
def test_client_ip_affinity_without_timeout_lasts_three_hours(config: Any) -> None:
    spec = _spec(sessionAffinity="ClientIP", sessionAffinityConfig=config)
    assert spec["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}


@pytest.mark.parametrize(("target", "expected"), [(None, 80), (0, 80), ("", 80), (8080, 8080), ("http", "http")])
def test_target_port_defaults_to_the_port(target: Any, expected: Any) -> None:
    port = {"port": 80} if target is None else {"port": 80, "targetPort": target}
    assert _spec(ports=[port])["ports"] == [{"port": 80, "targetPort": expected, "protocol": "TCP"}]


def test_explicit_port_protocol_is_kept() -> None:
    assert _spec(ports=[{"port": 53, "protocol": "UDP"}])["ports"][0]["protocol"] == "UDP"


@pytest.mark.parametrize(
    ("fields", "policy"),
    [
        ({"type": "NodePort"}, "Cluster"),
        ({"type": "LoadBalancer"}, "Cluster"),
        ({"type": "ClusterIP", "externalIPs": ["1.2.3.4"]}, "Cluster"),
        ({"type": "ClusterIP"}, None),
        ({"type": "ExternalName", "externalName": "example.com"}, None),
        ({"type": "NodePort", "externalTrafficPolicy": "Local"}, "Local"),
    ],
)
def test_external_traffic_policy_is_cluster_for_externally_reachable_services(
    fields: dict[str, Any], policy: str | None
) -> None:
    assert _spec(**fields).get("externalTrafficPolicy") == policy


@pytest.mark.parametrize(
    ("kind", "policy"),
    [("ClusterIP", "Cluster"), ("NodePort", "Cluster"), ("LoadBalancer", "Cluster"), ("ExternalName", None)],
)
def test_internal_traffic_policy_is_cluster_except_for_external_names(kind: str, policy: str | None) -> None:
    assert _spec(type=kind).get("internalTrafficPolicy") == policy


def test_load_balancers_allocate_node_ports_unless_told_not_to() -> None:
    assert _spec(type="LoadBalancer")["allocateLoadBalancerNodePorts"] is True
    assert _spec(type="LoadBalancer", allocateLoadBalancerNodePorts=False)["allocateLoadBalancerNodePorts"] is False


def test_allocation_is_not_defaulting() -> None:
    spec = _spec(type="NodePort", ports=[{"port": 80}])
    assert not {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "healthCheckNodePort"} & spec.keys()
    assert "nodePort" not in spec["ports"][0]
