"""Service `loadBalancerSourceRanges`: only for LoadBalancer services, each a CIDR (space padding allowed)."""

from __future__ import annotations

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_core_kinds import SERVICE

LOAD_BALANCER = with_path(SERVICE, "spec.type", "LoadBalancer")


def test_cidrs_on_a_load_balancer_pass() -> None:
    service = with_path(LOAD_BALANCER, "spec.loadBalancerSourceRanges", ["10.0.0.0/8", " 2001:db8::/64 "])
    assert causes("", "Service", service) == []


def test_ranges_on_a_cluster_ip_service_are_forbidden() -> None:
    service = with_path(SERVICE, "spec.loadBalancerSourceRanges", ["10.0.0.0/8"])
    found = causes("", "Service", service)
    assert_causes(found, [("spec.LoadBalancerSourceRanges", "FieldValueForbidden", "only be used when `type` is")])


def test_a_range_that_is_no_cidr_is_invalid() -> None:
    service = with_path(LOAD_BALANCER, "spec.loadBalancerSourceRanges", ["10.0.0.0"])
    found = causes("", "Service", service)
    assert_causes(found, [("spec.LoadBalancerSourceRanges[0]", "FieldValueInvalid", "must be a valid CIDR value")])
