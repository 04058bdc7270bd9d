"""The priority levels and flow schemas the server runs, as the stored objects say (upstream's
APF config controller).

It is an index the stores keep current (see `svc.apiserver.authz.follow`): every change of a
FlowSchema or PriorityLevelConfiguration rebuilds the ordered schemas and reconfigures the levels.
A removed level is dropped at once; requests already holding its seats finish normally, and ones
still waiting in it end at their wait deadline (upstream lets such a level quiesce instead).
It also writes each FlowSchema's `Dangling` condition, and every `period` seconds re-divides seats
between levels by demand (see `allocation`).
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import logging
from dataclasses import dataclass, field
from typing import Any

from svc.apiserver.flowcontrol import allocation
from svc.apiserver.flowcontrol.bootstrap import MANDATORY_NAMES
from svc.apiserver.flowcontrol.classifier import Schema, ordered
from svc.apiserver.flowcontrol.metrics import FlowControlMetrics
from svc.apiserver.flowcontrol.queueset import QueueSet, Queuing
from svc.apiserver.flowcontrol.width import max_seats
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]
log = logging.getLogger(__name__)
_STATUS_RETRY_SECONDS = 1.0
_STATUS = WriteOptions(subresource="status", field_manager="api-priority-and-fairness-config-consumer-v1")


@dataclass(eq=False)
class Level:
    name: str
    uid: str
    exempt: bool
    queueset: QueueSet | None
    bounds: allocation.Bounds
    max_seats: int = 1
    demand: float = 0.0
    executing: int = 0
    """Requests running in an exempt level (limited ones count in their queue set)."""
    dispatched: int = 0


def _queuing(spec: Obj) -> Queuing | None:
    response = (spec.get("limited") or {}).get("limitResponse") or {}
    if response.get("type") != "Queue":
        return None
    queuing = response.get("queuing") or {}
    return Queuing(
        int(queuing.get("queues") or 64), int(queuing.get("handSize") or 8), int(queuing.get("queueLengthLimit") or 50)
    )


def _shares(obj: Obj) -> allocation.Shares:
    spec = obj.get("spec") or {}
    exempt = spec.get("type") == "Exempt"
    part = (spec.get("exempt") if exempt else spec.get("limited")) or {}
    borrowing = part.get("borrowingLimitPercent")
    return allocation.Shares(
        name=obj["metadata"]["name"],
        exempt=exempt,
        shares=int(part.get("nominalConcurrencyShares") or 0),
        lendable_percent=int(part.get("lendablePercent") or 0),
        borrowing_percent=None if borrowing is None else int(borrowing),
    )


def _quoted(text: str) -> str:
    """Go's %q of a plain name."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dangling_condition(schema: Obj, levels: set[str]) -> Obj:
    level = ((schema.get("spec") or {}).get("priorityLevelConfiguration") or {}).get("name", "")
    if level in levels:
        return {
            "type": "Dangling",
            "status": "False",
            "reason": "Found",
            "message": f"This FlowSchema references the PriorityLevelConfiguration object named {_quoted(level)} "
            "and it exists",
        }
    return {
        "type": "Dangling",
        "status": "True",
        "reason": "NotFound",
        "message": f"This FlowSchema references the PriorityLevelConfiguration object named {_quoted(level)} "
        "but there is no such object",
    }


def _same(current: Obj | None, wanted: Obj) -> bool:
    return current is not None and all(current.get(key) == wanted[key] for key in ("status", "reason", "message"))


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Config:
    """The levels and ordered (non-dangling) schemas in force."""

    schemas: list[Schema] = field(default_factory=list)
    levels: dict[str, Level] = field(default_factory=dict)


class Controller:
    def __init__(
        self, server_limit: int, metrics: FlowControlMetrics, mandatory: dict[str, list[Obj]], period: float = 10.0
    ) -> None:
        self.server_limit = server_limit
        self.mandatory = mandatory
        """Objects the configuration always has: stand-ins while a mandatory object is missing."""
        self.metrics = metrics
        self.period = period
        self.config = Config()
        self._objects: dict[str, dict[str, Obj]] = {"flowschemas": {}, "prioritylevelconfigurations": {}}
        self._status_wakeup = asyncio.Event()
        self.mandatory_changed = asyncio.Event()
        """Set when a mandatory object's spec changes or the object goes (not on status writes), so the
        ensurer need not wait for its next round."""
        self._rebuild()

    # -- the index the stores keep current ------------------------------------------------------
    def reset(self, resource: str, objs: list[Obj]) -> None:
        self._objects[resource] = {obj["metadata"]["name"]: obj for obj in objs}
        self._rebuild()

    def put(self, resource: str, obj: Obj) -> None:
        previous = self._objects[resource].get(obj["metadata"]["name"])
        self._objects[resource][obj["metadata"]["name"]] = obj
        if previous is None or previous.get("spec") != obj.get("spec"):
            self._note_mandatory(obj)
        self._rebuild()

    def remove(self, resource: str, obj: Obj) -> None:
        self._objects[resource].pop(obj["metadata"]["name"], None)
        self._note_mandatory(obj)
        self._rebuild()

    def _note_mandatory(self, obj: Obj) -> None:
        if obj["metadata"]["name"] in MANDATORY_NAMES:
            self.mandatory_changed.set()

    def _with_mandatory(self, resource: str) -> dict[str, Obj]:
        objects = dict(self._objects[resource])
        for obj in self.mandatory.get(resource, ()):
            objects.setdefault(obj["metadata"]["name"], obj)
        return objects

    def _rebuild(self) -> None:
        level_objects = self._with_mandatory("prioritylevelconfigurations")
        shares = [_shares(obj) for obj in level_objects.values()]
        limits = allocation.bounds(self.server_limit, shares)
        old = self.config.levels
        levels: dict[str, Level] = {}
        for share in shares:
            obj = level_objects[share.name]
            bounds = limits[share.name]
            queuing = None if share.exempt else _queuing(obj.get("spec") or {})
            level = old.get(share.name)
            if level is None or level.exempt != share.exempt:
                queueset = None if share.exempt else QueueSet(share.name, bounds.nominal, queuing)
                level = Level(share.name, obj["metadata"].get("uid", ""), share.exempt, queueset, bounds)
            else:
                level.uid = obj["metadata"].get("uid", "")
                level.bounds = bounds
                if level.queueset is not None:
                    level.queueset.reconfigure(bounds.nominal, queuing)
            level.max_seats = max_seats(bounds.nominal)
            levels[share.name] = level
            self._publish_bounds(level)
        schemas = [Schema.of(obj) for obj in self._with_mandatory("flowschemas").values()]
        self.config = Config(ordered(schema for schema in schemas if schema.level in levels), levels)
        self._status_wakeup.set()

    def _publish_bounds(self, level: Level) -> None:
        labels = (level.name,)
        metrics = self.metrics
        metrics.child(metrics.nominal, labels).set(level.bounds.nominal)
        metrics.child(metrics.lower, labels).set(level.bounds.lower)
        metrics.child(metrics.upper, labels).set(level.bounds.upper)
        limit = level.queueset.limit if level.queueset is not None else level.bounds.nominal
        metrics.child(metrics.current, labels).set(limit)

    # -- borrowing ---------------------------------------------------------------------------------
    def reallocate(self) -> None:
        """One round of lending and borrowing: each limited level's limit follows its demand."""
        limited = {name: level for name, level in self.config.levels.items() if level.queueset is not None}
        for level in limited.values():
            assert level.queueset is not None
            level.demand = allocation.smooth(level.demand, level.queueset.take_peak_demand())
        limits = allocation.current_limits(
            {name: level.bounds for name, level in limited.items()},
            {name: level.demand for name, level in limited.items()},
        )
        for name, level in limited.items():
            assert level.queueset is not None
            level.queueset.reconfigure(limits[name], level.queueset.queuing)
            self.metrics.child(self.metrics.current, (name,)).set(limits[name])

    async def run_reallocation(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            try:
                self.reallocate()
            except Exception:  # a failed round keeps the previous limits; the next one tries again
                log.exception("APF seat reallocation failed")

    # -- Dangling conditions -------------------------------------------------------------------------
    async def run_status(self, store: GenericStore, user: UserInfo) -> None:
        """Keep every FlowSchema's `Dangling` condition true to whether its level exists."""
        while True:
            await self._status_wakeup.wait()
            self._status_wakeup.clear()
            if not await self.write_conditions(store, user):
                await asyncio.sleep(_STATUS_RETRY_SECONDS)
                self._status_wakeup.set()

    async def write_conditions(self, store: GenericStore, user: UserInfo) -> bool:
        """One pass over the schemas whose condition is stale (written concurrently); False when a write
        failed."""
        levels = set(self._objects["prioritylevelconfigurations"])

        async def write(name: str, wanted: Obj) -> bool:
            try:
                # what was stored is what the watch will bring: known now, it is not written twice
                self._objects["flowschemas"][name] = await _write_condition(store, name, wanted, user)
            except status.StatusError as error:
                return error.code == 404
            except Exception as error:  # storage trouble: try again a moment later
                log.warning("could not write the Dangling condition of FlowSchema %s: %s", name, error)
                return False
            return True

        stale = []
        for name, schema in list(self._objects["flowschemas"].items()):
            wanted = dangling_condition(schema, levels)
            conditions = (schema.get("status") or {}).get("conditions") or []
            current = next((c for c in conditions if c.get("type") == "Dangling"), None)
            if not _same(current, wanted):
                stale.append(write(name, wanted))
        return all(await asyncio.gather(*stale))


async def _write_condition(store: GenericStore, name: str, wanted: Obj, user: UserInfo) -> Obj:
    async def transform(current: Obj | None) -> Obj:
        if current is None:
            raise status.not_found(store.resource.group_resource, name)
        updated = copy.deepcopy(current)
        conditions = [c for c in (updated.get("status") or {}).get("conditions") or [] if c.get("type") != "Dangling"]
        conditions.append({**wanted, "lastTransitionTime": _now()})
        updated["status"] = {**(updated.get("status") or {}), "conditions": conditions}
        return updated

    stored, _ = await store.update("", name, transform, admission=NoAdmission(), user=user, options=_STATUS)
    return stored
