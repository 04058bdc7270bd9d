"""What the default admission chain costs a ConfigMap create, against no admission at all, in one run.

Two servers run side by side: one with upstream's default plugins (what `--enable-admission-plugins`
adds to), the other with `--admission-control=` (no plugin). A client creates ConfigMaps on one, then
on the other, in alternating rounds; each server keeps its cheapest round. The difference in server
CPU per request is the chain's cost on the write path.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON
from bench.server import ServerProcess, start_server

ROUNDS = 2
CHAINS = {"default plugins": (), "no admission": ("--admission-control=",)}
_names = itertools.count()


def _server_cpu_per_request(measured: Measurement) -> float:
    return measured.server_cpu / measured.ops if measured.ops else float("inf")


async def _measure(server: ServerProcess, concurrency: int, count: int) -> Measurement:
    collection = f"{server.url}/api/v1/namespaces/default/configmaps"
    async with open_session(server.credentials.ssl_context(), concurrency) as session:

        async def create(_: int) -> None:
            body = encode(configmap(f"adm-{next(_names)}"))
            async with session.post(collection, data=body, headers=JSON) as response:
                await expect(response, 201)

        measured = await drive(create, count=count, concurrency=concurrency, clock=CpuClock(server.cpu))
    if measured.errors:
        raise RuntimeError(f"{measured.errors} creates failed, the first with: {measured.first_error}")
    return measured


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    section = Section("ConfigMap create: the default admission chain vs no admission", LATENCY_HEADERS)
    facts: Facts = {}
    servers: dict[str, ServerProcess] = {}
    try:
        for label, flags in CHAINS.items():
            servers[label] = await start_server(workdir / f"admission-{len(servers)}", extra=flags)
        for concurrency, count in plan.crud_ops.items():
            best: dict[str, Measurement] = {}
            for round_ in range(ROUNDS):
                for label, server in servers.items():
                    progress(f"admission: create x{count:,} with {concurrency} client(s), {label}, round {round_ + 1}")
                    measured = await _measure(server, concurrency, count)
                    if label not in best or _server_cpu_per_request(measured) < _server_cpu_per_request(best[label]):
                        best[label] = measured
            for label in CHAINS:
                note = f"server CPU {_server_cpu_per_request(best[label]) * 1e6:.0f} µs/request"
                section.add(*latency_row(f"create ConfigMap, {label}", concurrency, best[label], note))
            cost = _server_cpu_per_request(best["default plugins"]) / _server_cpu_per_request(best["no admission"]) - 1
            facts[f"admission chain cost/{concurrency}"] = cost
            section.notes.append(
                f"{concurrency} client(s): the default chain costs {cost:+.1%} server CPU per create over no admission"
            )
    finally:
        for server in servers.values():
            server.stop()
    section.notes.append(
        "target: under 10% (issue 17); each chain keeps its cheapest of two alternating rounds (server CPU per request)"
    )
    return section, facts
