"""The resourcepoolstatusrequest-controller: answers a ResourcePoolStatusRequest with the device counts
of a DRA driver's pools, once, then deletes the request after its time-to-live.

Upstream `pkg/controller/resourcepoolstatusrequest` (DRAResourcePoolStatus gate, alpha): a request
without status is answered from the caches. Pools of `spec.driver` (only `spec.poolName` when given)
are read from the ResourceSlices of each pool's newest generation: total devices, devices with a
NoSchedule or NoExecute taint (unavailable), devices allocated by ResourceClaims (admin-access results
do not consume), available = total - allocated - unavailable (not below 0), the slice count, and the
node when every slice names the same one. A pool with fewer slices than `resourceSliceCount` says is
incomplete: the request is retried (5 times, with backoff) while the driver publishes. Pools are sorted
by driver and name, at most `spec.limit` (default 100) are listed, `poolCount` counts all, and the
`Complete` condition (`CalculationComplete`) says how many were calculated. Every 10 minutes answered
requests older than an hour (by their condition) and unanswered ones older than a day are deleted.
DeviceTaintRules are not consulted: their API is served only with the DRADeviceTaintRules gate and
not as resource.k8s.io/v1, the version upstream reads them from.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import every, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.node_health import parse_time

NAME = "resourcepoolstatusrequest-controller"
GATE = "DRAResourcePoolStatus"
GROUP = "resource.k8s.io"
VERSION = "v1alpha3"
DEFAULT_LIMIT = 100
MAX_RETRIES = 5
CLEANUP_INTERVAL = 600.0
COMPLETED_TTL = 3600.0
PENDING_TTL = 24 * 3600.0
INCOMPLETE = "PoolIncomplete:"
UNAVAILABLE_EFFECTS = {"NoSchedule", "NoExecute"}
log = logging.getLogger(__name__)
Obj = dict[str, Any]


class PoolIncomplete(Exception):
    """A pool's driver has not published all its slices yet; the request is looked at again."""


def _unavailable(device: Obj) -> bool:
    return any(taint.get("effect") in UNAVAILABLE_EFFECTS for taint in device.get("taints") or [])


def allocated_devices(claims: list[Obj]) -> dict[tuple[str, str], set[str]]:
    """(driver, pool) -> names of devices some claim's allocation consumes."""
    used: dict[tuple[str, str], set[str]] = {}
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation") or {}
        for result in (allocation.get("devices") or {}).get("results") or []:
            if not result.get("adminAccess"):
                used.setdefault((result.get("driver", ""), result.get("pool", "")), set()).add(result.get("device", ""))
    return used


def pool_statuses(request: Obj, slices: list[Obj], claims: list[Obj]) -> list[Obj]:
    """Every matching pool's status, sorted by driver and pool name (not yet limited)."""
    spec = request.get("spec") or {}
    driver, wanted = spec.get("driver"), spec.get("poolName")
    mine = [
        s
        for s in slices
        if (s.get("spec") or {}).get("driver") == driver and (not wanted or s["spec"]["pool"]["name"] == wanted)
    ]
    newest: dict[str, int] = {}
    for s in mine:
        pool = s["spec"]["pool"]
        newest[pool["name"]] = max(newest.get(pool["name"], pool.get("generation", 0)), pool.get("generation", 0))
    used = allocated_devices(claims)
    pools: list[Obj] = []
    for name, generation in newest.items():
        current = [
            s
            for s in mine
            if s["spec"]["pool"]["name"] == name and s["spec"]["pool"].get("generation", 0) == generation
        ]
        expected = max(s["spec"]["pool"].get("resourceSliceCount", 0) for s in current)
        status: Obj = {"driver": driver, "poolName": name, "generation": generation}
        nodes = {s["spec"].get("nodeName") or "" for s in current}
        if len(nodes) == 1 and "" not in nodes:
            status["nodeName"] = nodes.pop()
        if len(current) < expected:
            message = (
                f"{INCOMPLETE} pool {driver}/{name} is incomplete: "
                f"observed {len(current)}/{expected} slices at generation {generation}"
            )
            status["validationError"] = message[:256]
        else:
            devices = [device for s in current for device in s["spec"].get("devices") or []]
            unavailable = sum(1 for device in devices if _unavailable(device))
            allocated = len(used.get((driver, name), ()))
            status |= {
                "resourceSliceCount": len(current),
                "totalDevices": len(devices),
                "allocatedDevices": allocated,
                "availableDevices": max(0, len(devices) - allocated - unavailable),
                "unavailableDevices": unavailable,
            }
        pools.append(status)
    return sorted(pools, key=lambda pool: (pool["driver"], pool["poolName"]))


def request_status(request: Obj, pools: list[Obj], now: str) -> Obj:
    listed = pools[: (request.get("spec") or {}).get("limit") or DEFAULT_LIMIT]
    incomplete = sum(1 for pool in listed if "validationError" in pool)
    message = f"Calculated status for {len(listed)} pools"
    if incomplete:
        message += f" ({incomplete} incomplete)"
    condition = {
        "type": "Complete",
        "status": "True",
        "lastTransitionTime": now,
        "reason": "CalculationComplete",
        "message": message,
    }
    status: Obj = {"poolCount": len(pools), "conditions": [condition]}
    if listed:
        status["pools"] = listed
    return status


def expired(request: Obj, now: float) -> bool:
    status = request.get("status")
    if status:
        for condition in status.get("conditions") or []:
            if condition.get("type") in ("Complete", "Failed") and condition.get("lastTransitionTime"):
                return now - parse_time(condition["lastTransitionTime"]) > COMPLETED_TTL
        return now - parse_time(request["metadata"]["creationTimestamp"]) > COMPLETED_TTL
    return now - parse_time(request["metadata"]["creationTimestamp"]) > PENDING_TTL


class ResourcePoolStatusRequestController:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.group = context.profile.group(GROUP)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.requests = context.informers.informer(GROUP, VERSION, "resourcepoolstatusrequests")
        self.slices = context.informers.informer(GROUP, "v1", "resourceslices")
        self.claims = context.informers.informer(GROUP, "v1", "resourceclaims")
        self.requests.add_handler(Handler(on_add=self._changed, on_update=lambda _old, new: self._changed(new)))

    def _changed(self, request: Obj) -> None:
        if not request.get("status"):
            self.queue.add(request["metadata"]["name"])

    async def run(self) -> None:
        await asyncio.gather(
            run_workers(self.queue, self._sync_with_retries, workers=self.workers, name=NAME),
            every(self.context.clock, CLEANUP_INTERVAL, self.clean_up),
        )

    async def _sync_with_retries(self, name: str) -> None:
        """Upstream drops a request after 5 failed tries (it stays pending until its day is up)."""
        try:
            await self.sync(name)
        except Exception:
            if self.queue.retries(name) >= MAX_RETRIES:
                log.warning("%s: dropping %s after %d retries", NAME, name, MAX_RETRIES)
                return
            raise

    async def sync(self, name: str) -> None:
        request = self.requests.get(name)
        if request is None or request.get("status"):
            return
        pools = pool_statuses(request, self.slices.list(), self.claims.list())
        if any(pool.get("validationError", "").startswith(INCOMPLETE) for pool in pools):
            raise PoolIncomplete(f"incomplete pools detected in {name}, requeueing")
        now = datetime.fromtimestamp(self.context.clock.wall(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = {**request, "status": request_status(request, pools, now)}
        path = resource_path(self.group, VERSION, "resourcepoolstatusrequests", name=name, subresource="status")
        await self.context.client.update(path, body)

    async def clean_up(self) -> None:
        now = self.context.clock.wall()
        for request in self.requests.list():
            if not expired(request, now):
                continue
            metadata = request["metadata"]
            path = resource_path(self.group, VERSION, "resourcepoolstatusrequests", name=metadata["name"])
            try:
                await self.context.client.delete(path, {"preconditions": {"uid": metadata["uid"]}})
            except ApiError as error:
                if error.reason != "NotFound":
                    log.warning("%s: deleting %s: %s", NAME, metadata["name"], error)
