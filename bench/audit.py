"""What auditing at Metadata level costs a GET, against the same GET with auditing off.

Two servers, each with one ConfigMap: one without audit flags, one with a policy putting every
request at Metadata level and the JSON log backend writing to a file (the default blocking mode:
two events a request, RequestReceived and ResponseComplete, written by the event loop). The same GET
runs against each in alternating rounds; each keeps its cheapest round (server CPU per request, the
measure other processes on a shared machine barely move). Target (issue 20): under 15%.
"""

from __future__ import annotations

from pathlib import Path

from bench.authz import _checked, _server_cpu_per_request
from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row, rate
from bench.rest import JSON
from bench.server import ServerProcess, start_server

ROUNDS = 2
TARGET = "/api/v1/namespaces/default/configmaps/target"
POLICY = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"


async def _prepare(server: ServerProcess) -> None:
    async with (
        open_session(server.credentials.ssl_context(), 1) as session,
        session.post(
            f"{server.url}/api/v1/namespaces/default/configmaps", data=encode(configmap("target")), headers=JSON
        ) as response,
    ):
        await expect(response, 201)


async def _measure(server: ServerProcess, concurrency: int, count: int) -> Measurement:
    target = f"{server.url}{TARGET}"
    async with open_session(server.credentials.ssl_context(), concurrency) as session:

        async def get(_: int) -> None:
            async with session.get(target, headers=JSON) as response:
                await expect(response, 200)

        _checked(await drive(get, count=concurrency * 4, concurrency=concurrency, clock=CpuClock(server.cpu)))
        return _checked(
            await drive(get, count=count, concurrency=concurrency, clock=CpuClock(server.cpu), repeatable=True)
        )


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    section = Section("Namespaced GET: audit at Metadata level (log backend) vs audit off", LATENCY_HEADERS)
    facts: Facts = {}
    policy = workdir / "audit-policy.yaml"
    policy.write_text(POLICY)
    audited_flags = (f"--audit-policy-file={policy}", f"--audit-log-path={workdir / 'audit.log'}")
    servers = {
        "audit off": await start_server(workdir / "audit-off"),
        "audit Metadata": await start_server(workdir / "audit-on", extra=audited_flags),
    }
    try:
        for server in servers.values():
            await _prepare(server)
        for concurrency, count in plan.crud_ops.items():
            best: dict[str, Measurement] = {}
            for round_ in range(ROUNDS):
                for name, server in servers.items():
                    progress(f"audit: GET x{count:,} with {concurrency} client(s), {name}, round {round_ + 1}")
                    measured = await _measure(server, concurrency, count)
                    if name not in best or _server_cpu_per_request(measured) < _server_cpu_per_request(best[name]):
                        best[name] = measured
            for name, measured in best.items():
                note = f"server CPU {_server_cpu_per_request(measured) * 1e6:.0f} µs/request"
                section.add(*latency_row(f"GET, {name}", concurrency, measured, note))
            off, on = best["audit off"], best["audit Metadata"]
            cost = _server_cpu_per_request(on) / _server_cpu_per_request(off) - 1
            facts[f"audit metadata cost/{concurrency}"] = cost
            section.notes.append(
                f"{concurrency} client(s): auditing costs {cost:.0%} more server CPU per GET; throughput "
                f"{rate(on.rate)} audited vs {rate(off.rate)} off"
            )
    finally:
        for server in servers.values():
            server.stop()
    section.notes.append("target: under 15% of GET throughput (issue 20); cheapest of two alternating rounds each")
    return section, facts
