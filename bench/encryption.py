"""What encryption at rest costs Secret creates and GETs: aescbc, aesgcm and secretbox against plain
(identity) storage.

One fresh server per provider, each encrypting `secrets` with its provider alone. Creates encrypt the
value once and decrypt it once more when the watch cache takes in the event; GETs are consistent
reads from the watch cache, which holds decoded objects (as upstream's), so they decrypt nothing and
should cost what plain storage costs. Each row reads server CPU per request next to throughput.
"""

from __future__ import annotations

import base64
from pathlib import Path

from bench.authz import _checked, _server_cpu_per_request
from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.objects import encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON
from bench.server import ServerProcess, start_server

SECRETS = "/api/v1/namespaces/default/secrets"
PROVIDERS = ("identity", "aescbc", "aesgcm", "secretbox")
_KEY = base64.b64encode(bytes(range(32))).decode()
_PAYLOAD = base64.b64encode(b"s" * 700).decode()


def _config(workdir: Path, provider: str) -> tuple[str, ...]:
    """The server flags that encrypt Secrets with `provider` (none for identity: plain storage)."""
    if provider == "identity":
        return ()
    path = workdir / f"encryption-{provider}.yaml"
    path.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
        f"- resources: [secrets]\n  providers:\n  - {provider}: {{keys: [{{name: bench, secret: {_KEY}}}]}}\n"
    )
    return (f"--encryption-provider-config={path}",)


def _secret(name: str) -> bytes:
    return encode({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": {"payload": _PAYLOAD}})


async def _measure(server: ServerProcess, concurrency: int, count: int) -> tuple[Measurement, Measurement]:
    url = server.url
    async with open_session(server.credentials.ssl_context(), concurrency) as session:

        async def create(index: int) -> None:
            async with session.post(f"{url}{SECRETS}", data=_secret(f"s-{index}"), headers=JSON) as response:
                await expect(response, 201)

        async def get(index: int) -> None:
            async with session.get(f"{url}{SECRETS}/s-{index % count}", headers=JSON) as response:
                await expect(response, 200)

        created = _checked(await drive(create, count=count, concurrency=concurrency, clock=CpuClock(server.cpu)))
        read = _checked(
            await drive(get, count=count, concurrency=concurrency, clock=CpuClock(server.cpu), repeatable=True)
        )
        return created, read


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    section = Section("Secrets encrypted at rest: create and GET per provider", LATENCY_HEADERS)
    facts: Facts = {}
    concurrency = max(plan.crud_ops)
    count = plan.crud_ops[concurrency]
    results: dict[str, tuple[Measurement, Measurement]] = {}
    for provider in PROVIDERS:
        progress(f"encryption: {count:,} Secret creates and GETs with {concurrency} clients, {provider}")
        server = await start_server(workdir / f"encryption-{provider}", extra=_config(workdir, provider))
        try:
            results[provider] = await _measure(server, concurrency, count)
        finally:
            server.stop()
    plain_create, plain_get = results["identity"]
    for provider, (created, read) in results.items():
        for verb, measured, baseline in (("create", created, plain_create), ("GET", read, plain_get)):
            cpu = _server_cpu_per_request(measured)
            ratio = cpu / _server_cpu_per_request(baseline)
            note = f"server CPU {cpu * 1e6:.0f} µs/request ({ratio:.0%} of identity)"
            section.add(*latency_row(f"Secret {verb}, {provider}", concurrency, measured, note))
            facts[f"encryption {provider} {verb} cpu vs identity"] = ratio
    section.notes.append(
        "GETs are served from the watch cache (decoded objects), so only creates pay for encryption; "
        "one server per provider, measured one after the other"
    )
    return section, facts
