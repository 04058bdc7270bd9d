"""The resourcepoolstatusrequest controller over seeded caches and the fake clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from svc.controllers.resourcepoolstatusrequest import PoolIncomplete, ResourcePoolStatusRequestController
from tests.controllers.fakes import make_context

PATH = "/apis/resource.svc/v1alpha3/resourcepoolstatusrequests"
Obj = dict[str, Any]


def stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def request(name: str = "q", **spec: Any) -> Obj:
    return {"metadata": {"name": name, "uid": f"uid-{name}", "creationTimestamp": stamp(1000)}, "spec": spec}


def slice_(name: str, pool: str, devices: list[Obj], *, generation: int = 1, count: int = 1, node: str = "n1") -> Obj:
    spec = {
        "driver": "gpu.example.com",
        "nodeName": node,
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
        "devices": devices,
    }
    return {"metadata": {"name": name}, "spec": spec}


def claim(*results: Obj) -> Obj:
    return {
        "metadata": {"name": "c", "namespace": "ns"},
        "status": {"allocation": {"devices": {"results": list(results)}}},
    }


def used(device: str, *, admin: bool = False) -> Obj:
    return {"driver": "gpu.example.com", "pool": "p1", "device": device, "request": "r", "adminAccess": admin}


def controller() -> tuple[ResourcePoolStatusRequestController, Any]:
    context, client = make_context()
    return ResourcePoolStatusRequestController(context), client


def test_a_pool_is_counted_from_its_newest_slices_and_the_claims_allocations() -> None:
    rpsr, client = controller()
    rpsr.requests.replace([request(driver="gpu.example.com")])
    tainted = {"name": "d2", "taints": [{"key": "k", "effect": "NoSchedule"}]}
    foreign = slice_("other", "p1", [{"name": "z"}], generation=2)
    foreign["spec"]["driver"] = "other.example.com"
    newest = slice_("a", "p1", [{"name": "d0"}, {"name": "d1"}, tainted, {"name": "d3"}], generation=2)
    rpsr.slices.replace([slice_("old", "p1", [{"name": "x"}] * 9, generation=1), newest, foreign])
    rpsr.claims.replace([claim(used("d0"), used("d0"), used("d1", admin=True))])
    asyncio.run(rpsr.sync("q"))
    verb, path, body = client.calls[0]
    assert (verb, path) == ("update", f"{PATH}/q/status")
    assert body["status"]["poolCount"] == 1
    assert body["status"]["pools"] == [
        {
            "driver": "gpu.example.com",
            "poolName": "p1",
            "generation": 2,
            "nodeName": "n1",
            "resourceSliceCount": 1,
            "totalDevices": 4,
            "allocatedDevices": 1,
            "availableDevices": 2,
            "unavailableDevices": 1,
        }
    ]
    condition = body["status"]["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"]) == ("Complete", "True", "CalculationComplete")
    assert condition["message"] == "Calculated status for 1 pools"


def test_the_limit_truncates_the_pools_but_not_the_count() -> None:
    rpsr, client = controller()
    rpsr.requests.replace([request(driver="gpu.example.com", limit=1)])
    rpsr.slices.replace([slice_("b", "p2", []), slice_("a", "p1", [], node="n2")])
    asyncio.run(rpsr.sync("q"))
    status = client.calls[0][2]["status"]
    assert (status["poolCount"], [pool["poolName"] for pool in status["pools"]]) == (2, ["p1"])


def test_an_incomplete_pool_retries_instead_of_answering() -> None:
    rpsr, client = controller()
    rpsr.requests.replace([request(driver="gpu.example.com")])
    rpsr.slices.replace([slice_("a", "p1", [], count=2)])
    with pytest.raises(PoolIncomplete):
        asyncio.run(rpsr.sync("q"))
    assert client.calls == []


def test_an_answered_request_is_left_alone_and_deleted_an_hour_after_it_completed() -> None:
    rpsr, client = controller()
    clock = rpsr.context.clock
    done = request("done") | {
        "status": {"poolCount": 0, "conditions": [{"type": "Complete", "lastTransitionTime": stamp(clock.wall())}]}
    }
    rpsr.requests.replace([done, request("pending")])
    asyncio.run(rpsr.sync("done"))
    asyncio.run(rpsr.clean_up())
    assert client.calls == []
    asyncio.run(clock.advance(3601))
    asyncio.run(rpsr.clean_up())
    assert client.calls == [("delete", f"{PATH}/done", {"preconditions": {"uid": "uid-done"}})]
    asyncio.run(clock.advance(24 * 3600))
    asyncio.run(rpsr.clean_up())
    assert client.calls[-1] == ("delete", f"{PATH}/pending", {"preconditions": {"uid": "uid-pending"}})
