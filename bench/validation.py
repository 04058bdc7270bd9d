"""What a kind's validation costs its create: ConfigMap (issue 12's crud row), Pod and Deployment.

Two numbers per kind, and their share: (a) the CPU of the kind's create validation per object,
measured in this process on the object exactly as the create path hands it to the strategy's
`validate` (the server's create answer, defaulted again and prepared by `before_create`, so the
defaults and the admission plugins' changes, such as the service account token volume of a pod, are
in it), many calls, best of several rounds; (b) the server's CPU per create of that kind, at one
client and many (a server started as the crud scenario starts one). The server has no switch to turn
validation off: the share is (a)/(b).
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import configmap, deployment, encode, pod
from bench.plan import Plan
from bench.progress import progress
from bench.report import Facts, Section
from bench.rest import JSON, ensure_default_account, ensure_namespace
from bench.server import ServerProcess, start_server
from svc.api.brand import KUBERNETES
from svc.api.kinds import strategy_for
from svc.api.resources import ResourceSet
from svc.api.strategy import Strategy
from svc.registry.create import before_create

NAMESPACE = "bench-validation"
SERVER_ROUNDS = 2
"""Rounds of creates per kind and client count; the cheapest (server CPU per create) is kept."""
VALIDATE_ROUNDS = 5
TARGET = 0.15
HEADERS = ("kind", "clients", "creates", "server CPU per create", "validation per object", "share", "notes")

Obj = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str
    group_version: str
    resource: str
    make: Callable[[str], Obj]

    @property
    def api(self) -> tuple[str, str, str]:
        group, _, version = self.group_version.rpartition("/")
        return group, version, self.resource

    def collection(self, url: str) -> str:
        root = "/api" if "/" not in self.group_version else "/apis"
        return f"{url}{root}/{self.group_version}/namespaces/{NAMESPACE}/{self.resource}"


KINDS = (
    Kind("ConfigMap", "v1", "configmaps", configmap),
    Kind("Pod", "v1", "pods", pod),
    Kind("Deployment", "apps/v1", "deployments", deployment),
)


def handed_to_validate(strategy: Strategy, obj: Obj, namespace: str) -> Obj:
    """A copy of what the create path passes to `strategy.validate` for `obj`, as decoded: the
    store's defaulting, then `before_create` up to the kind's validation."""
    seen: list[Obj] = []

    def capture(handed: Obj) -> list:
        seen.append(copy.deepcopy(handed))
        return strategy.validate(handed)

    obj = copy.deepcopy(obj)
    strategy.default(obj)
    before_create(dataclasses.replace(strategy, validate=capture), obj, namespace)
    return seen[0]


def validation_seconds(strategy: Strategy, obj: Obj, iterations: int, rounds: int = VALIDATE_ROUNDS) -> float:
    """CPU seconds of one `strategy.validate(obj)`: the cheapest round of `iterations` calls."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(iterations):
            strategy.validate(obj)
        best = min(best, (time.process_time() - started) / iterations)
    return best


def _per_create(measured: Measurement) -> float:
    return measured.server_cpu / measured.ops if measured.ops else float("inf")


async def _creates(
    server: ServerProcess, kind: Kind, concurrency: int, count: int, round_: int, answers: dict[str, bytes]
) -> Measurement:
    """`count` creates of the kind; the server's answer to the last one is kept in `answers`."""
    collection = kind.collection(server.url)
    async with open_session(server.credentials.ssl_context(), concurrency) as session:

        async def create(index: int) -> None:
            body = encode(kind.make(f"{kind.name.lower()}-{concurrency}-{round_}-{index}"))
            async with session.post(collection, data=body, headers=JSON) as response:
                answers[kind.name] = await expect(response, 201)

        measured = await drive(create, count=count, concurrency=concurrency, clock=CpuClock(server.cpu))
    if measured.errors:
        raise RuntimeError(f"{measured.errors} {kind.name} creates failed, the first with: {measured.first_error}")
    return measured


def _as_sent_again(answer: bytes) -> Obj:
    """The server's create answer as a client could send it back: no resourceVersion."""
    obj = orjson.loads(answer)
    obj["metadata"].pop("resourceVersion", None)
    return obj


async def _server_costs(
    server: ServerProcess, plan: Plan, answers: dict[str, bytes]
) -> dict[tuple[str, int], Measurement]:
    async with open_session(server.credentials.ssl_context(), 1) as session:
        await ensure_namespace(session, server.url, NAMESPACE)
        await ensure_default_account(session, server.url, NAMESPACE)
    best: dict[tuple[str, int], Measurement] = {}
    for concurrency, total in plan.crud_ops.items():
        count = max(total // SERVER_ROUNDS, 1)
        for round_ in range(SERVER_ROUNDS):
            for kind in KINDS:
                progress(f"validation: {kind.name} create x{count:,} with {concurrency} client(s), round {round_ + 1}")
                measured = await _creates(server, kind, concurrency, count, round_, answers)
                key = (kind.name, concurrency)
                if key not in best or _per_create(measured) < _per_create(best[key]):
                    best[key] = measured
    return best


def _validation_costs(plan: Plan, answers: dict[str, bytes]) -> dict[str, float]:
    resources = ResourceSet(KUBERNETES)
    costs: dict[str, float] = {}
    for kind in KINDS:
        resource = resources.get(*kind.api)
        if resource is None:
            raise RuntimeError(f"no resource {kind.api}")
        strategy = strategy_for(resource, KUBERNETES)
        obj = handed_to_validate(strategy, _as_sent_again(answers[kind.name]), NAMESPACE)
        errors = strategy.validate(obj)
        if errors:
            raise RuntimeError(f"the {kind.name} the server accepted fails validation here: {errors[0]}")
        progress(f"validation: {kind.name} validate x{plan.validation_iterations:,}, best of {VALIDATE_ROUNDS}")
        costs[kind.name] = validation_seconds(strategy, obj, plan.validation_iterations)
    return costs


def _micros(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    section = Section("Validation's share of a create (ConfigMap, Pod, Deployment)", HEADERS)
    facts: Facts = {}
    answers: dict[str, bytes] = {}
    server = await start_server(workdir / "validation")
    try:
        measured = await _server_costs(server, plan, answers)
    finally:
        server.stop()
    costs = _validation_costs(plan, answers)
    for kind in KINDS:
        facts[f"validation {kind.name}"] = costs[kind.name]
        for concurrency in plan.crud_ops:
            best = measured[(kind.name, concurrency)]
            share = costs[kind.name] / _per_create(best)
            facts[f"validation share {kind.name}/{concurrency}"] = share
            note = f"{best.rate:,.0f} creates/s; {best.cpu_note()}"
            cells = (_micros(_per_create(best)), _micros(costs[kind.name]), f"{share:.1%}", note)
            section.add(kind.name, str(concurrency), f"{best.ops:,}", *cells)
    section.notes.append(
        "validation per object: the kind's `validate` in this process on the object the create path hands it "
        f"(the server's answer defaulted and prepared again), best of {VALIDATE_ROUNDS} rounds of "
        f"{plan.validation_iterations:,} calls (CPU time); generic metadata checks not included; this is the "
        "steady state of a workload's creates: parts found valid before (volume sources, container resources, "
        "probes, label keys) are remembered and not checked again, as in the server, so a pod seen for the "
        "first time costs more"
    )
    section.notes.append(
        f"server CPU per create: the cheapest of {SERVER_ROUNDS} rounds per kind and client count; "
        "share = validation per object / server CPU per create"
    )
    section.notes.append(f"target: under {TARGET:.0%} (issue 12)")
    return section, facts
