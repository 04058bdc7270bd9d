"""The service-cidr controller over seeded caches."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest

from svc.client.workers import RequeueAfter
from svc.controllers.servicecidr import BLOCKED_MESSAGE, ServiceCIDRController
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
PATH = "/apis/networking.svc/v1/servicecidrs"
FINALIZER = "networking.svc/service-cidr-finalizer"


def cidr(name: str, *cidrs: str, **metadata: Any) -> Obj:
    return {"metadata": {"name": name, **metadata}, "spec": {"cidrs": list(cidrs)}}


def address(ip: str) -> Obj:
    labels = {"ipaddress.svc.io/ip-family": "IPv4", "ipaddress.svc.io/managed-by": "ipallocator.svc"}
    return {"metadata": {"name": ip, "labels": labels}}


def ago(now: float, seconds: float) -> str:
    return datetime.datetime.fromtimestamp(now - seconds, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def controller(cidrs: list[Obj], addresses: list[Obj] = ()) -> tuple[ServiceCIDRController, Any]:
    context, client = make_context()
    service_cidrs = ServiceCIDRController(context)
    service_cidrs.cidrs.replace(cidrs)
    service_cidrs.addresses.replace(list(addresses))
    return service_cidrs, client


def test_a_new_range_gets_the_finalizer_and_the_ready_condition() -> None:
    async def scenario() -> None:
        service_cidrs, client = controller([cidr("extra", "10.1.0.0/24")])
        await service_cidrs.sync("extra")
        (verb, path, body), (status_verb, status_path, status) = client.calls
        assert (verb, path, body) == ("patch:strategic", f"{PATH}/extra", {"metadata": {"finalizers": [FINALIZER]}})
        assert (status_verb, status_path) == ("patch:merge", f"{PATH}/extra/status")
        (condition,) = status["status"]["conditions"]
        assert (condition["type"], condition["status"], condition["reason"], condition["message"]) == (
            "Ready",
            "True",
            "",
            "Kubernetes Service CIDR is ready",
        )

    asyncio.run(scenario())


def test_a_deleted_range_still_holding_the_only_home_of_an_ip_is_blocked() -> None:
    async def scenario() -> None:
        deleting = cidr("extra", "10.1.0.0/24", finalizers=[FINALIZER], deletionTimestamp=ago(1000.0, 60))
        service_cidrs, client = controller([deleting], [address("10.1.0.7")])
        await service_cidrs.sync("extra")
        (condition,) = client.calls[0][2]["status"]["conditions"]
        assert (condition["status"], condition["reason"], condition["message"]) == (
            "False",
            "Terminating",
            BLOCKED_MESSAGE,
        )
        covered, client = controller([deleting, cidr("wide", "10.0.0.0/8")], [address("10.1.0.7")])
        await covered.sync("extra")
        assert client.calls == [
            ("patch:strategic", f"{PATH}/extra", {"metadata": {"$deleteFromPrimitiveList/finalizers": [FINALIZER]}})
        ]

    asyncio.run(scenario())


def test_the_finalizer_waits_for_the_grace_period_after_the_deletion() -> None:
    async def scenario() -> None:
        context, client = make_context()
        service_cidrs = ServiceCIDRController(context)
        now = context.clock.wall()
        stamp = ago(now, 4)
        service_cidrs.cidrs.replace([cidr("extra", "10.1.0.0/24", finalizers=[FINALIZER], deletionTimestamp=stamp)])
        with pytest.raises(RequeueAfter):
            await service_cidrs.sync("extra")
        assert client.calls == []

    asyncio.run(scenario())
