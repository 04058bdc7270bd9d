"""node-ipam: the CIDR set, the flags' refusals, and what a sync writes."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from svc.client.aio import ApiError
from svc.controllers.cidrset import CIDRSet, CIDRSetError
from svc.controllers.nodeipam import NodeIPAMController, configure
from tests.controllers.fakes import make_context, status_error


def net(text: str):  # type: ignore[no-untyped-def]
    return ipaddress.ip_network(text)


def test_subnets_are_handed_out_round_robin_skipping_taken_ones_until_none_is_left() -> None:
    cidrs = CIDRSet(net("10.0.0.0/22"), 24)
    cidrs.occupy(net("10.0.1.0/24"))
    assert [str(cidrs.allocate_next()) for _ in range(3)] == ["10.0.0.0/24", "10.0.2.0/24", "10.0.3.0/24"]
    with pytest.raises(CIDRSetError, match="no remaining CIDRs"):
        cidrs.allocate_next()
    cidrs.release(net("10.0.0.0/24"))
    assert str(cidrs.allocate_next()) == "10.0.0.0/24"
    with pytest.raises(CIDRSetError, match="out the range"):
        cidrs.occupy(net("192.168.0.0/24"))


def test_a_node_mask_more_than_16_bits_below_the_cluster_mask_is_refused() -> None:
    with pytest.raises(CIDRSetError, match="the node CIDR size is too big"):
        CIDRSet(net("10.0.0.0/8"), 25)


def flags(**overrides):  # type: ignore[no-untyped-def]
    values = {"cluster_cidr": "10.244.0.0/16", "service_range": "", "mask": 0, "mask_v4": 0, "mask_v6": 0}
    return configure(**{**values, "allocator": "RangeAllocator", **overrides})


def test_flag_combinations_upstream_refuses() -> None:
    assert flags().mask_sizes == (24,)
    assert flags(cluster_cidr="10.244.0.0/16,fd00::/48", mask_v6=56).mask_sizes == (24, 56)
    refusals = {
        "missing --cluster-cidr": {"cluster_cidr": " "},
        "not configured as dual stack": {"cluster_cidr": "10.0.0.0/16,10.1.0.0/16"},
        "not allowed with dual-stack clusters": {"cluster_cidr": "10.0.0.0/16,fd00::/48", "mask": 24},
        "not allowed for a single-stack IPv4 cluster": {"mask_v6": 64},
        "CloudAllocator": {"allocator": "CloudAllocator"},
    }
    for message, overrides in refusals.items():
        with pytest.raises(ValueError, match=message):
            flags(**overrides)


def test_a_new_node_gets_one_subnet_per_family_outside_the_service_range() -> None:
    async def scenario() -> None:
        context, client = make_context()
        config = flags(cluster_cidr="10.0.0.0/23,fd00::/63", service_range="10.0.0.0/24", mask_v6=64)
        controller = NodeIPAMController(context, config)
        controller.nodes.replace([{"metadata": {"name": "n1", "uid": "u1"}, "spec": {}}])
        await controller.sync("n1")
        assert client.calls == [
            (
                "patch:strategic",
                "/api/v1/nodes/n1",
                {
                    "metadata": {"uid": "u1"},
                    "spec": {"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24", "fd00::/64"]},
                },
            )
        ]

    asyncio.run(scenario())


def test_a_full_range_is_an_event_and_an_error_and_existing_cidrs_are_kept() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = NodeIPAMController(context, flags(cluster_cidr="10.0.0.0/24", mask=24))
        old = {"metadata": {"name": "old"}, "spec": {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24"]}}
        controller.nodes.replace([old, {"metadata": {"name": "new"}, "spec": {}}])
        with pytest.raises(RuntimeError, match="failed to allocate cidr"):
            await controller.sync("new")
        assert client.calls == []
        event = client.events[0][2]
        assert (event["reason"], event["message"]) == ("CIDRNotAvailable", "Node new status is now: CIDRNotAvailable")
        controller.nodes.replace([{"metadata": {"name": "new"}, "spec": {}}])
        client.failures["patch:strategic"] = status_error(500, "InternalError")
        with pytest.raises(ApiError):
            await controller.sync("new")
        assert client.events[-1][2]["reason"] == "CIDRAssignmentFailed"

    asyncio.run(scenario())
