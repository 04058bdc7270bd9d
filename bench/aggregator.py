"""Requests through the aggregation layer: a GET proxied to an extension server against a local GET
on the same server, and against the extension server asked directly, at 32 clients.

The extension server is `svc.testing.extension_server` (the resource metrics API) on a thread of the
load process, reached through an ExternalName Service; the API server authenticates and authorizes
each request, resolves the service, and forwards it over a kept-alive TLS connection with the
front-proxy headers. The difference to the local GET is what proxying costs; the direct row bounds
what the extension server (sharing the load process) can answer at all.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from pathlib import Path

import aiohttp

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON
from bench.server import ServerProcess, start_server
from svc.testing.extension_server import (
    RunningExtension,
    issue_extension_tls,
    metrics_api,
    node_metrics,
    threaded_extension_server,
)

SERVICE, NAMESPACE = "metrics", "default"
APISERVICE = "/apis/apiregistration.k8s.io/v1/apiservices"
NODE = "/apis/metrics.k8s.io/v1beta1/nodes/node-a"
_AVAILABLE_WITHIN = 30.0


async def _register(session: aiohttp.ClientSession, url: str, extension: RunningExtension) -> None:
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": SERVICE, "namespace": NAMESPACE},
        "spec": {"type": "ExternalName", "externalName": "127.0.0.1", "ports": [{"port": extension.port}]},
    }
    api_service = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": "v1beta1.metrics.k8s.io"},
        "spec": {
            "group": "metrics.k8s.io",
            "version": "v1beta1",
            "service": {"namespace": NAMESPACE, "name": SERVICE, "port": extension.port},
            "caBundle": extension.tls.ca_bundle,
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
        },
    }
    for path, body in ((f"/api/v1/namespaces/{NAMESPACE}/services", service), (APISERVICE, api_service)):
        async with session.post(f"{url}{path}", data=encode(body), headers=JSON) as response:
            await expect(response, 201)
    deadline = time.perf_counter() + _AVAILABLE_WITHIN
    while time.perf_counter() < deadline:
        async with session.get(f"{url}{NODE}", headers=JSON) as response:
            await response.read()
            if response.status == 200:
                return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"the extension server was not available within {_AVAILABLE_WITHIN:.0f} s")


async def _gets(session: aiohttp.ClientSession, url: str, count: int, clock: CpuClock, **kwargs: object) -> Measurement:
    async def get(_: int) -> None:
        async with session.get(url, headers=JSON, **kwargs) as response:  # type: ignore[arg-type]
            await expect(response, 200)

    await drive(get, count=64, concurrency=32, clock=clock)  # warm the connections
    return await drive(get, count=count, concurrency=32, clock=clock, repeatable=True)


async def _measure(server: ServerProcess, extension: RunningExtension, count: int) -> dict[str, Measurement]:
    clock = CpuClock(server.cpu)
    measured = {}
    async with open_session(server.credentials.ssl_context(), 32) as session:
        await _register(session, server.url, extension)
        local = f"{server.url}/api/v1/namespaces/{NAMESPACE}/configmaps/local"
        async with session.post(
            f"{server.url}/api/v1/namespaces/{NAMESPACE}/configmaps", data=encode(configmap("local")), headers=JSON
        ) as response:
            await expect(response, 201)
        progress(f"aggregator: local ConfigMap get x{count:,} with 32 clients")
        measured["local get"] = await _gets(session, local, count, clock)
        progress(f"aggregator: proxied get x{count:,} with 32 clients")
        measured["proxied get"] = await _gets(session, f"{server.url}{NODE}", count, clock)
    direct = ssl.create_default_context(cadata=extension.tls.ca_pem.decode())
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=32)) as session:
        progress(f"aggregator: extension server asked directly x{count:,} with 32 clients")
        measured["direct get"] = await _gets(
            session,
            f"https://127.0.0.1:{extension.port}{NODE}",
            count,
            clock,
            ssl=direct,
            server_hostname=f"{SERVICE}.{NAMESPACE}.svc",
        )
    return measured


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    count = plan.crud_ops[32]
    section = Section("GET proxied to an extension server through the aggregation layer", LATENCY_HEADERS)
    tls = issue_extension_tls(workdir / "extension-tls", SERVICE, NAMESPACE)
    api = metrics_api(lambda: [node_metrics("node-a", "250m", "512Mi")], lambda: [])
    server = await start_server(workdir / "aggregator", extra=("--brand-profile=kubernetes",))
    try:
        with threaded_extension_server(api, tls) as extension:
            measured = await _measure(server, extension, count)
    finally:
        server.stop()
    labels = {
        "local get": "ConfigMap get (served locally)",
        "proxied get": "NodeMetrics get, proxied to the extension server",
        "direct get": "NodeMetrics get, extension server asked directly (anchor)",
    }
    for key, label in labels.items():
        section.add(*latency_row(label, 32, measured[key]))
    added = measured["proxied get"].p50 - measured["local get"].p50
    section.notes.append(
        f"proxying adds {added * 1e3:.2f} ms to the p50 of a GET at 32 clients; the extension server runs on a "
        "thread of the load process, so its rate and the proxied rate share that process's CPU"
    )
    facts = {
        "aggregator local get/32": measured["local get"].rate,
        "aggregator proxied get/32": measured["proxied get"].rate,
        "aggregator direct get/32": measured["direct get"].rate,
    }
    return section, facts
