"""What API Priority and Fairness costs a GET, and what it buys a victim under a flood.

Overhead: two servers with the same objects, one with `--enable-priority-and-fairness=false`, are
read by a token user (who falls under the `global-default` schema, so every request is classified
past eleven schemas and dispatched through a queue set). Alternating rounds, each server keeps its
cheapest; the difference in server CPU per request is APF's cost on the request path.

Flood: a server with 30 seats (`--max-requests-inflight=20 --max-mutating-requests-inflight=10`)
and a low priority level for the flooding user (10 shares, lending and borrowing nothing, 16 queues
of at most 10). The flooder, a process of its own (so its work does not delay the victim's client),
runs many concurrent LISTs that scan a thousand objects and return none (each 10 seats wide,
clamped to the level's limit) and waits `Retry-After`
after a 429, as client-go does; meanwhile a victim, the controller manager's user (schema
`kube-controller-manager`, level `workload-high`), GETs one object at a time. The same flood then
runs against a server without APF (the plain in-flight limits) for comparison.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import ssl
import sys
from asyncio.subprocess import PIPE
from pathlib import Path

import aiohttp

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON, ensure_namespace
from bench.server import ServerProcess, start_server

ROOT = Path(__file__).resolve().parent.parent
FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1"
READER, FLOODER, VICTIM = "bench-reader-token", "bench-flooder-token", "bench-victim-token"
FLOOD_OBJECTS = 1_000
FLOOD_CLIENTS = 64
FLOOD_LIMITS = ("--max-requests-inflight=20", "--max-mutating-requests-inflight=10")
ROUNDS = 2
VICTIM_REQUESTS = 200


def _tokens() -> str:
    return f"{READER},reader,1\n{FLOODER},flooder,2\n{VICTIM},system:kube-controller-manager,3\n"


def _token_context(server: ServerProcess) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(server.credentials.ca_file))
    context.set_alpn_protocols(["http/1.1"])
    return context


def _checked(measured: Measurement) -> Measurement:
    if measured.errors:
        raise RuntimeError(f"{measured.errors} requests failed, the first with: {measured.first_error}")
    return measured


def _cpu_per_request(measured: Measurement) -> float:
    return measured.server_cpu / measured.ops if measured.ops else float("inf")


async def _populate(server: ServerProcess, objects: int) -> None:
    async with open_session(server.credentials.ssl_context(), 16) as session:
        await ensure_namespace(session, server.url, "apf")

        async def create(index: int) -> None:
            url = f"{server.url}/api/v1/namespaces/apf/configmaps"
            async with session.post(url, data=encode(configmap(f"cm-{index}")), headers=JSON) as response:
                await expect(response, 201)

        _checked(await drive(create, count=objects, concurrency=16, clock=CpuClock(server.cpu)))


async def _flood_level(server: ServerProcess) -> None:
    level = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": "bench-flood"},
        "spec": {
            "type": "Limited",
            "limited": {
                "nominalConcurrencyShares": 10,
                "lendablePercent": 0,
                "borrowingLimitPercent": 0,
                "limitResponse": {"type": "Queue", "queuing": {"queues": 16, "handSize": 4, "queueLengthLimit": 10}},
            },
        },
    }
    schema = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": "bench-flood"},
        "spec": {
            "priorityLevelConfiguration": {"name": "bench-flood"},
            "matchingPrecedence": 1000,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [
                {
                    "subjects": [{"kind": "User", "user": {"name": "flooder"}}],
                    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}],
                }
            ],
        },
    }
    async with open_session(server.credentials.ssl_context(), 1) as session:
        for resource, body in (("prioritylevelconfigurations", level), ("flowschemas", schema)):
            url = f"{server.url}{FLOWCONTROL}/{resource}"
            async with session.post(url, data=encode(body), headers=JSON) as response:
                await expect(response, 201)
    await asyncio.sleep(1.0)  # the objects reach the classifier a cache flush after they are stored


async def _get_as(
    server: ServerProcess, token: str, concurrency: int, count: int, *, repeatable: bool = True
) -> Measurement:
    target = f"{server.url}/api/v1/namespaces/apf/configmaps/cm-0"
    headers = {**JSON, "Authorization": f"Bearer {token}"}
    async with open_session(_token_context(server), concurrency) as session:

        async def get(_: int) -> None:
            async with session.get(target, headers=headers) as response:
                await expect(response, 200)

        warm = await drive(get, count=concurrency * 4, concurrency=concurrency, clock=CpuClock(server.cpu))
        if repeatable:  # a victim without APF may meet the in-flight limit at once: its row counts the 429s
            _checked(warm)
        clock = CpuClock(server.cpu)
        return await drive(get, count=count, concurrency=concurrency, clock=clock, repeatable=repeatable)


async def _overhead(workdir, plan: Plan, tokens, section: Section, facts: Facts) -> None:
    servers: dict[str, ServerProcess] = {}
    try:
        for mode, flags in (("APF", ()), ("no APF", ("--enable-priority-and-fairness=false",))):
            servers[mode] = await start_server(
                workdir / f"apf-{len(servers)}", extra=("--token-auth-file", str(tokens), *flags)
            )
            await _populate(servers[mode], 1)
        for concurrency, count in plan.crud_ops.items():
            best: dict[str, Measurement] = {}
            for round_ in range(ROUNDS):
                for mode, server in servers.items():
                    progress(f"apf: GET x{count:,} with {concurrency} client(s), {mode}, round {round_ + 1}")
                    measured = _checked(await _get_as(server, READER, concurrency, count))
                    if mode not in best or _cpu_per_request(measured) < _cpu_per_request(best[mode]):
                        best[mode] = measured
            for mode, measured in best.items():
                note = f"server CPU {_cpu_per_request(measured) * 1e6:.0f} µs/request"
                section.add(*latency_row(f"GET as a token user, {mode}", concurrency, measured, note))
            cost = _cpu_per_request(best["APF"]) / _cpu_per_request(best["no APF"]) - 1
            facts[f"apf get cost/{concurrency}"] = cost
            section.notes.append(f"{concurrency} client(s): APF costs {cost:+.1%} server CPU per GET")
    finally:
        for server in servers.values():
            server.stop()


async def _flood(url: str, cafile: str, stop: asyncio.Event) -> dict[int, int]:
    """LISTs from the flooder until `stop`; the count of answers by status."""
    statuses: dict[int, int] = {}
    context = ssl.create_default_context(cafile=cafile)
    context.set_alpn_protocols(["http/1.1"])
    # every object is scanned (and the request is 10 seats wide) but none is returned: server work
    # without client work, so the flooding process keeps its requests coming
    target = f"{url}/api/v1/namespaces/apf/configmaps?resourceVersion=0&labelSelector=bench%3Dnone"
    headers = {**JSON, "Authorization": f"Bearer {FLOODER}"}
    async with open_session(context, FLOOD_CLIENTS) as session:

        async def worker() -> None:
            while not stop.is_set():
                with contextlib.suppress(aiohttp.ClientError, OSError, asyncio.TimeoutError):
                    async with session.get(target, headers=headers) as response:
                        await response.read()
                        statuses[response.status] = statuses.get(response.status, 0) + 1
                        if response.status == 429:
                            await asyncio.sleep(float(response.headers.get("Retry-After", "1")))

        await asyncio.gather(*(worker() for _ in range(FLOOD_CLIENTS)))
    return statuses


async def _flood_until_terminated(url: str, cafile: str) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    statuses = await _flood(url, cafile, stop)
    print(json.dumps(statuses), flush=True)


async def _victim_under_flood(server: ServerProcess, count: int) -> tuple[Measurement, dict[int, int]]:
    flood = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.apf", server.url, str(server.credentials.ca_file), cwd=ROOT, stdout=PIPE
    )
    try:
        await asyncio.sleep(3.0)  # let the flood fill its queues
        measured = await _get_as(server, VICTIM, 1, count, repeatable=False)
    finally:
        flood.terminate()
        output, _ = await asyncio.wait_for(flood.communicate(), 60)
    statuses = {int(code): number for code, number in json.loads(output or b"{}").items()}
    return measured, statuses


async def _flooded(workdir, plan: Plan, tokens, section: Section, facts: Facts) -> None:
    count = min(plan.crud_ops[1], VICTIM_REQUESTS)
    for mode, flags in (("APF", ()), ("no APF", ("--enable-priority-and-fairness=false",))):
        server = await start_server(
            workdir / f"apf-flood-{mode.replace(' ', '-')}",
            extra=("--token-auth-file", str(tokens), *FLOOD_LIMITS, *flags),
        )
        try:
            await _populate(server, FLOOD_OBJECTS)
            if mode == "APF":
                await _flood_level(server)
            progress(f"apf: victim GET x{count:,} under a flood of {FLOOD_CLIENTS} LIST clients, {mode}")
            measured, statuses = await _victim_under_flood(server, count)
        finally:
            server.stop()
        flood = ", ".join(f"{code}: {number:,}" for code, number in sorted(statuses.items()))
        section.add(*latency_row(f"victim GET under flood, {mode}", 1, measured, f"flood answers {flood}"))
        key = "apf" if mode == "APF" else "no apf"
        facts[f"{key} victim p99"] = measured.p99
        facts[f"{key} flood 429"] = statuses.get(429, 0)


async def run(workdir, plan: Plan) -> tuple[Section, Facts]:
    section = Section("API Priority and Fairness: cost on GET, and a victim under a flood", LATENCY_HEADERS)
    facts: Facts = {}
    tokens = workdir / "apf-tokens.csv"
    tokens.write_text(_tokens())
    await _overhead(workdir, plan, tokens, section, facts)
    await _flooded(workdir, plan, tokens, section, facts)
    section.notes.append(
        "targets (issue 20): APF under 5% of GET cost; a victim at a higher level keeps p99 under 100 ms while a "
        f"flood of {FLOOD_CLIENTS} LIST clients at a low level gets 429s"
    )
    return section, facts


if __name__ == "__main__":
    asyncio.run(_flood_until_terminated(sys.argv[1], sys.argv[2]))
