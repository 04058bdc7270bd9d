"""The device-taint-eviction controller over seeded caches and the fake clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from svc.controllers.devicetainteviction import DeviceTaintEvictionController
from svc.controllers.options import parse_options
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
POD = "/api/v1/namespaces/team/pods/worker"


def stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def pod(node: str = "n1") -> Obj:
    spec = {"nodeName": node, "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}
    status = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "worker-gpu-x"}]}
    return {"metadata": {"name": "worker", "namespace": "team", "uid": "pod-uid"}, "spec": spec, "status": status}


def claim(*tolerations: Obj) -> Obj:
    result = {"request": "r", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}
    if tolerations:
        result["tolerations"] = list(tolerations)
    status = {
        "allocation": {"devices": {"results": [result]}},
        "reservedFor": [{"resource": "pods", "name": "worker", "uid": "pod-uid"}],
    }
    return {"metadata": {"name": "worker-gpu-x", "namespace": "team"}, "status": status}


def slice_(*taints: Obj, generation: int = 1) -> Obj:
    spec = {
        "driver": "gpu.example.com",
        "nodeName": "n1",
        "pool": {"name": "n1", "generation": generation, "resourceSliceCount": 1},
        "devices": [{"name": "gpu-0", "taints": list(taints)}],
    }
    return {"metadata": {"name": f"s{generation}"}, "spec": spec}


def controller(*taints: Obj, tolerations: tuple[Obj, ...] = ()) -> tuple[DeviceTaintEvictionController, Any]:
    context, client = make_context()
    tec = DeviceTaintEvictionController(context)
    tec.slices.replace([slice_(*taints)])
    tec.claims.replace([claim(*tolerations)])
    return tec, client


def taint(added: float, effect: str = "NoExecute") -> Obj:
    return {"key": "example.com/broken", "value": "yes", "effect": effect, "timeAdded": stamp(added)}


def test_an_untolerated_noexecute_taint_evicts_at_its_time_added() -> None:
    tec, _ = controller(taint(1000))
    assert tec.pod_eviction_time(pod()) == 1000
    assert tec.pod_eviction_time(pod(node="")) is None


def test_a_toleration_delays_by_its_seconds_or_forever_and_noschedule_never_evicts() -> None:
    bounded = {"key": "example.com/broken", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    forever = {"key": "example.com/broken", "operator": "Exists", "effect": "NoExecute"}
    assert controller(taint(1000), tolerations=(bounded,))[0].pod_eviction_time(pod()) == 1060
    assert controller(taint(1000), tolerations=(forever,))[0].pod_eviction_time(pod()) is None
    assert controller(taint(1000, "NoSchedule"))[0].pod_eviction_time(pod()) is None


def test_only_the_newest_generation_of_the_pool_counts() -> None:
    tec, _ = controller(taint(1000))
    tec.slices.replace([slice_(taint(1000), generation=1), slice_(generation=2)])
    assert tec.pod_eviction_time(pod()) is None


def test_the_pod_gets_the_condition_and_is_deleted_with_its_uid_when_due() -> None:
    async def scenario() -> None:
        tec, client = controller(taint(1010))
        client.objects[POD] = pod()
        tec.pods.replace([pod()])
        await tec.sync("team/worker")
        assert client.calls == []
        await tec.context.clock.advance(10)
        await tec.sync("team/worker")
        verbs = [(verb, path) for verb, path, _ in client.calls]
        assert verbs == [("get", POD), ("update", f"{POD}/status"), ("delete", POD)]
        condition = client.calls[1][2]["status"]["conditions"][-1]
        assert (condition["reason"], condition["message"]) == (
            "DeletionByDeviceTaintManager",
            "Device Taint manager: deleting due to NoExecute taint",
        )
        assert client.calls[2][2] == {"preconditions": {"uid": "pod-uid"}}
        assert [(e[2]["reason"], e[2]["message"]) for e in client.events] == [
            ("DeviceTaintManagerEviction", "Marking for deletion")
        ]

    asyncio.run(scenario())


def test_a_lifted_taint_cancels_the_eviction_with_an_event() -> None:
    async def scenario() -> None:
        tec, client = controller(taint(5000))
        tec.pods.replace([pod()])
        assert "team/worker" in tec.scheduled
        tec.slices.replace([slice_()])
        assert "team/worker" not in tec.scheduled
        await tec.sync("team/worker")
        assert [e[2]["message"] for e in client.events] == ["Cancelling deletion"]
        assert client.calls == []

    asyncio.run(scenario())


def test_it_runs_by_default_and_stops_with_its_gate() -> None:
    assert "device-taint-eviction-controller" in parse_options([]).enabled
    assert "device-taint-eviction-controller" not in parse_options(["--feature-gates=DRADeviceTaints=false"]).enabled
