"""What one matching admission webhook adds to a ConfigMap create, against no webhook, in one run.

One server; a validating webhook that allows everything runs over HTTPS on loopback in this
process (aiohttp, its own CA). One client creates ConfigMaps with no webhook configured, then with
a ValidatingWebhookConfiguration matching them, in alternating rounds (the configuration is
followed live, so installing and deleting it switches between the two); each side keeps its
cheapest round by p50. The difference of the p50s is the webhook's cost as the client sees it:
the AdmissionReview built and encoded, one TLS request on a kept-alive connection, the answer
checked.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON
from bench.server import ServerProcess, start_server
from svc.testing.webhook_server import WebhookTls, issue_webhook_tls

ROUNDS = 2
CONFIGURATIONS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
NAME = "bench-allow"


@contextlib.asynccontextmanager
async def _allowing_webhook(tls: WebhookTls) -> AsyncIterator[str]:
    async def allow(request: web.Request) -> web.Response:
        review = await request.json()
        answer = {"uid": review["request"]["uid"], "allowed": True}
        return web.json_response({"apiVersion": review["apiVersion"], "kind": "AdmissionReview", "response": answer})

    app = web.Application()
    app.router.add_post("/allow", allow)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=tls.server_context())
    await site.start()
    try:
        yield f"https://127.0.0.1:{runner.addresses[0][1]}/allow"
    finally:
        await runner.cleanup()


def _configuration(url: str, tls: WebhookTls, group: str) -> dict:
    return {
        "apiVersion": f"{group}/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": NAME},
        "webhooks": [
            {
                "name": "allow.bench.svc",
                "clientConfig": {"url": url, "caBundle": tls.ca_bundle},
                "rules": [
                    {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
                ],
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
                "failurePolicy": "Fail",
            }
        ],
    }


async def _creates(server: ServerProcess, count: int, names: itertools.count) -> Measurement:
    url = f"{server.url}/api/v1/namespaces/default/configmaps"
    async with open_session(server.credentials.ssl_context(), 1) as session:

        async def create(_: int) -> None:
            body = encode(configmap(f"webhook-{next(names)}"))
            async with session.post(url, data=body, headers=JSON) as response:
                await expect(response, 201)

        await drive(create, count=20, concurrency=1, clock=CpuClock(server.cpu))  # warm the connections
        measured = await drive(create, count=count, concurrency=1, clock=CpuClock(server.cpu))
    if measured.errors:
        raise RuntimeError(f"{measured.errors} creates failed, the first with: {measured.first_error}")
    return measured


async def _switch(server: ServerProcess, body: dict | None) -> None:
    async with open_session(server.credentials.ssl_context(), 1) as session:
        if body is None:
            async with session.delete(f"{server.url}{CONFIGURATIONS}/{NAME}", headers=JSON) as response:
                await expect(response, 200)
        else:
            async with session.post(f"{server.url}{CONFIGURATIONS}", data=encode(body), headers=JSON) as response:
                await expect(response, 201)


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    count = plan.crud_ops[1] // 2
    section = Section("ConfigMap create with one matching validating webhook on loopback", LATENCY_HEADERS)
    tls = issue_webhook_tls(workdir / "webhook-tls", ["127.0.0.1"])
    server = await start_server(workdir / "webhooks", extra=("--brand-profile=kubernetes",))
    names = itertools.count()
    best: dict[str, Measurement] = {}
    try:
        async with _allowing_webhook(tls) as url:
            configuration = _configuration(url, tls, "admissionregistration.k8s.io")
            for round_ in range(ROUNDS):
                for side in ("no webhook", "one webhook"):
                    progress(f"webhooks: create x{count:,}, {side}, round {round_ + 1}")
                    if side == "one webhook":
                        await _switch(server, configuration)
                    measured = await _creates(server, count, names)
                    if side == "one webhook":
                        await _switch(server, None)
                    if side not in best or measured.p50 < best[side].p50:
                        best[side] = measured
    finally:
        server.stop()
    for side, measured in best.items():
        note = f"server CPU {_cpu_per_request(measured) * 1e6:.0f} µs/request"
        section.add(*latency_row(f"create ConfigMap, {side}", 1, measured, note))
    added = best["one webhook"].p50 - best["no webhook"].p50
    cpu = _cpu_per_request(best["one webhook"]) - _cpu_per_request(best["no webhook"])
    section.notes.append(
        f"one matching webhook adds {added * 1e3:.2f} ms to the p50 of a create and {cpu * 1e6:.0f} µs of server "
        "CPU per request (target: under 2 ms p50, issue 17); each side keeps its cheapest of two alternating "
        "rounds; the webhook runs in the load process, so a busy machine adds two process wake-ups per request"
    )
    return section, {"webhook added p50": added, "webhook added server cpu": cpu}


def _cpu_per_request(measured: Measurement) -> float:
    return measured.server_cpu / measured.ops if measured.ops else float("inf")
