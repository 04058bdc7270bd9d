"""Create, get, update and delete of ConfigMaps, one client and many, over keep-alive connections.

Each concurrency level works on its own set of names through the four verbs in order, so every
get finds its object, every update carries the resourceVersion the previous write returned (as a
controller's does, so it is a compare-and-swap, not an unconditional write) and the deletes empty
the namespace again.
"""

from __future__ import annotations

import aiohttp

from bench.client import CpuClock, drive, expect, open_session
from bench.objects import CONFIGMAP_PAYLOAD, configmap, encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON, ensure_namespace, resource_version
from bench.server import ServerProcess

NAMESPACE = "bench-crud"
# Verbs whose batch can run again on the same objects (a disturbed batch is repeated, see `drive`).
REPEATABLE = frozenset({"get", "update"})


class ConfigMapSet:
    """The names one concurrency level works on, with the resourceVersion each last write returned."""

    def __init__(self, session: aiohttp.ClientSession, url: str, prefix: str, count: int) -> None:
        self.session = session
        self.namespace_url = f"{url}/api/v1/namespaces/{NAMESPACE}"
        self.collection = f"{self.namespace_url}/configmaps"
        self.names = [f"{prefix}-{index}" for index in range(count)]
        self.versions = [""] * count
        self.stored_bytes = 0

    async def warm(self, _: int) -> None:
        async with self.session.get(self.namespace_url, headers=JSON) as response:
            await expect(response, 200)

    async def create(self, index: int) -> None:
        body = encode(configmap(self.names[index]))
        async with self.session.post(self.collection, data=body, headers=JSON) as response:
            answer = await expect(response, 201)
        self.versions[index] = resource_version(answer)
        self.stored_bytes = len(answer)

    async def get(self, index: int) -> None:
        async with self.session.get(f"{self.collection}/{self.names[index]}", headers=JSON) as response:
            await expect(response, 200)

    async def get_cached(self, index: int) -> None:
        """A GET with `resourceVersion=0`, which upstream serves from the watch cache whatever the store."""
        url = f"{self.collection}/{self.names[index]}"
        async with self.session.get(url, params={"resourceVersion": "0"}, headers=JSON) as response:
            await expect(response, 200)

    async def update(self, index: int) -> None:
        obj = configmap(self.names[index], payload=0)
        obj["data"]["payload"] = "y" * CONFIGMAP_PAYLOAD
        obj["metadata"]["resourceVersion"] = self.versions[index]
        url = f"{self.collection}/{self.names[index]}"
        async with self.session.put(url, data=encode(obj), headers=JSON) as response:
            self.versions[index] = resource_version(await expect(response, 200))

    async def delete(self, index: int) -> None:
        async with self.session.delete(f"{self.collection}/{self.names[index]}", headers=JSON) as response:
            await expect(response, 200)


async def run(server: ServerProcess, plan: Plan) -> tuple[Section, Facts]:
    section = Section("ConfigMap create / get / update / delete (~1 KB objects)", LATENCY_HEADERS)
    facts: Facts = {}
    clock = CpuClock(server.cpu)
    for concurrency, count in plan.crud_ops.items():
        async with open_session(server.credentials.ssl_context(), concurrency) as session:
            await ensure_namespace(session, server.url, NAMESPACE)
            objects = ConfigMapSet(session, server.url, f"cm-{concurrency}", count)
            await drive(objects.warm, count=concurrency * 4, concurrency=concurrency, clock=clock)
            for verb in ("create", "get", "update", "delete"):
                progress(f"crud: {verb} x{count:,} with {concurrency} client(s)")
                operation = getattr(objects, verb)
                repeatable = verb in REPEATABLE
                measured = await drive(
                    operation, count=count, concurrency=concurrency, clock=clock, repeatable=repeatable
                )
                section.add(*latency_row(f"ConfigMap {verb}", concurrency, measured))
                facts[f"{verb}/{concurrency}"] = measured.rate
            facts["configmap bytes"] = float(objects.stored_bytes)
    section.notes.append("update is a PUT carrying the resourceVersion the previous write returned")
    return section, facts
