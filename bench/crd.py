"""Custom resources: create and get at 32 clients beside ConfigMaps on the same server, the time from
a CRD's create to its resource being served, and 100 CRDs installed at once (as a large operator's
chart does) until all are served, with the server's RSS growth.

"Served" is what a client waits for: the group version's discovery document answering 200, which
the server publishes before it writes `Established`. The ConfigMap rows run on the same server just
before the custom resource rows, so the ratio compares like with like on a shared machine.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import aiohttp

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import CONFIGMAP_PAYLOAD, configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row, millis, size
from bench.rest import JSON, ensure_namespace
from bench.server import ServerProcess, start_server

NAMESPACE = "bench-crd"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_POLL_SECONDS = 0.01
_SERVED_WITHIN = 60.0


def crd(group: str, plural: str = "widgets", kind: str = "Widget") -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {"payload": {"type": "string"}, "replicas": {"type": "integer"}},
            }
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


def widget(name: str) -> dict[str, Any]:
    """A custom resource of about the bench ConfigMap's size."""
    return {
        "apiVersion": "bench.example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "labels": {"app": "bench"}},
        "spec": {"payload": "x" * CONFIGMAP_PAYLOAD, "replicas": 1},
    }


async def _served(session: aiohttp.ClientSession, url: str, group: str) -> None:
    deadline = time.perf_counter() + _SERVED_WITHIN
    while True:
        async with session.get(f"{url}/apis/{group}/v1", headers=JSON) as response:
            await response.read()
            if response.status == 200:
                return
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{group}/v1 was not served within {_SERVED_WITHIN:.0f} s")
        await asyncio.sleep(_POLL_SECONDS)


async def _install(session: aiohttp.ClientSession, url: str, group: str) -> float:
    """Seconds from the CRD's create request to its group version being served."""
    started = time.perf_counter()
    async with session.post(f"{url}{CRD_PATH}", data=encode(crd(group)), headers=JSON) as response:
        await expect(response, 201)
    await _served(session, url, group)
    return time.perf_counter() - started


async def _create_and_get(
    session: aiohttp.ClientSession, collection: str, make: Any, count: int, clock: CpuClock
) -> tuple[Measurement, Measurement]:
    names = [f"obj-{index}" for index in range(count)]

    async def create(index: int) -> None:
        async with session.post(collection, data=encode(make(names[index])), headers=JSON) as response:
            await expect(response, 201)

    async def get(index: int) -> None:
        async with session.get(f"{collection}/{names[index]}", headers=JSON) as response:
            await expect(response, 200)

    created = await drive(create, count=count, concurrency=32, clock=clock)
    got = await drive(get, count=count, concurrency=32, clock=clock, repeatable=True)
    return created, got


async def _verbs(server: ServerProcess, plan: Plan, section: Section, facts: Facts) -> None:
    count = plan.crud_ops[32]
    clock = CpuClock(server.cpu)
    async with open_session(server.credentials.ssl_context(), 32) as session:
        await ensure_namespace(session, server.url, NAMESPACE)
        await _install(session, server.url, "bench.example.com")
        namespace = f"{server.url}/api/v1/namespaces/{NAMESPACE}"
        progress(f"crd: ConfigMap create and get x{count:,} with 32 clients")
        cm_create, cm_get = await _create_and_get(
            session, f"{namespace}/configmaps", lambda name: configmap(name), count, clock
        )
        progress(f"crd: custom resource create and get x{count:,} with 32 clients")
        collection = f"{server.url}/apis/bench.example.com/v1/namespaces/{NAMESPACE}/widgets"
        cr_create, cr_get = await _create_and_get(session, collection, widget, count, clock)
    for label, measured in (
        ("ConfigMap create", cm_create),
        ("custom resource create", cr_create),
        ("ConfigMap get", cm_get),
        ("custom resource get", cr_get),
    ):
        section.add(*latency_row(label, 32, measured))
    facts["crd cm create/32"], facts["crd cr create/32"] = cm_create.rate, cr_create.rate
    facts["crd cm get/32"], facts["crd cr get/32"] = cm_get.rate, cr_get.rate


async def _install_times(server: ServerProcess, plan: Plan, section: Section, facts: Facts) -> None:
    """CRDs installed one after another: create request to served, each."""
    times = []
    async with open_session(server.credentials.ssl_context(), 4) as session:
        for index in range(plan.crd_installs):
            times.append(await _install(session, server.url, f"one{index}.example.com"))
    times.sort()
    facts["crd served p50"], facts["crd served max"] = statistics.median(times), times[-1]
    section.add(
        "one CRD, create to served",
        "1",
        f"{len(times)}",
        "",
        millis(statistics.median(times)),
        millis(times[-1]),
        "p99 column: the slowest",
    )


async def _many(server: ServerProcess, plan: Plan, section: Section, facts: Facts) -> None:
    """`plan.crd_batch` CRDs posted at once; time until every one is served; RSS before and after."""
    count = plan.crd_batch
    rss_before = server.rss()
    async with open_session(server.credentials.ssl_context(), 32) as session:
        started = time.perf_counter()
        await asyncio.gather(*(_install(session, server.url, f"many{index}.example.com") for index in range(count)))
        elapsed = time.perf_counter() - started
    await asyncio.sleep(1.0)
    growth = server.rss() - rss_before
    facts["crd batch seconds"], facts["crd batch rss"] = elapsed, float(growth)
    section.add(
        f"{count} CRDs at once, until all served",
        "32",
        f"{count}",
        "",
        "",
        millis(elapsed),
        f"RSS growth {size(growth)} ({size(growth / count)} per CRD)",
    )


async def run(workdir: Any, plan: Plan) -> tuple[Section, Facts]:
    section = Section("Custom resources (~1 KB objects) beside ConfigMaps, CRD install", LATENCY_HEADERS)
    facts: Facts = {}
    server = await start_server(workdir / "crd", extra=("--brand-profile=kubernetes",))
    try:
        await _verbs(server, plan, section, facts)
        progress(f"crd: {plan.crd_installs} CRDs installed one at a time")
        await _install_times(server, plan, section, facts)
        progress(f"crd: {plan.crd_batch} CRDs installed at once")
        await _many(server, plan, section, facts)
    finally:
        server.stop()
    section.notes.append(
        "served: the group version's discovery answers 200; the CRD rows' p99 column holds the slowest install"
    )
    return section, facts
