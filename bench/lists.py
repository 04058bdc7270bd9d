"""Lists of many objects: from the watch cache (`resourceVersion=0`) and consistent (unset), JSON and Protobuf.

Each kind gets a namespace of its own, filled by concurrent creates, so a namespaced list returns
exactly the objects made for it. The client reads the whole body and does not decode it: the
time is the server's encoding and the transfer, which is what a list costs a real client before
its own decoding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aiohttp

from bench.client import CpuClock, drive, expect, open_session
from bench.objects import configmap, pod
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row, size
from bench.rest import create_many, ensure_namespace
from bench.server import ServerProcess

PROTOBUF = "application/vnd.kubernetes.protobuf"
KINDS: tuple[tuple[str, str, str, Callable[[str], dict[str, Any]]], ...] = (
    ("cm", "ConfigMaps", "configmaps", configmap),
    ("pod", "pods", "pods", pod),
)
VARIANTS = (("cache", "0", "from cache (resourceVersion=0)"), ("consistent", "", "consistent (resourceVersion unset)"))
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
FORMATS = (
    ("json", "application/json", "identity", "JSON"),
    ("table", TABLE, "identity", "Table (as kubectl get asks)"),
    ("protobuf", PROTOBUF, "identity", "Protobuf"),
    ("json-gzip", "application/json", "gzip", "JSON, gzip"),
)


async def _list_once(session: aiohttp.ClientSession, url: str, accept: str, encoding: str, sizes: list[int]) -> None:
    async with session.get(url, headers={"Accept": accept, "Accept-Encoding": encoding}) as response:
        body = await expect(response, 200)
        if response.content_type != accept.split(";", 1)[0]:
            raise RuntimeError(f"asked for {accept}, got {response.content_type}")
        sizes.append(len(body))


async def run(server: ServerProcess, plan: Plan) -> tuple[Section, Facts]:
    count = plan.list_objects
    section = Section(f"List of {count:,} objects (one client, {plan.list_repeats} lists each)", LATENCY_HEADERS)
    facts: Facts = {"list objects": float(count)}
    clock = CpuClock(server.cpu)
    async with open_session(server.credentials.ssl_context(), plan.populate_concurrency) as session:
        for key, title, plural, make in KINDS:
            namespace = f"bench-list-{key}"
            await ensure_namespace(session, server.url, namespace)
            collection = f"{server.url}/api/v1/namespaces/{namespace}/{plural}"
            progress(f"lists: creating {count:,} {title}")
            filled = await create_many(
                session,
                collection,
                lambda index, make=make: make(f"obj-{index}"),
                count=count,
                concurrency=plan.populate_concurrency,
                clock=clock,
            )
            if filled.errors:
                raise RuntimeError(f"could not create the {title} to list: {filled.first_error}")
            for variant, version, variant_title in VARIANTS:
                for fmt, accept, encoding, fmt_title in FORMATS:
                    if variant != "cache" and encoding != "identity":
                        continue
                    progress(f"lists: {title} {variant_title}, {fmt_title}")
                    url = f"{collection}?resourceVersion={version}" if version else collection
                    sizes: list[int] = []
                    measured = await drive(
                        lambda _, url=url, accept=accept, encoding=encoding, sizes=sizes: _list_once(
                            session, url, accept, encoding, sizes
                        ),
                        count=plan.list_repeats,
                        concurrency=1,
                        clock=clock,
                        repeatable=True,
                    )
                    note = f"{size(sizes[0])} per list" if sizes else ""
                    section.add(*latency_row(f"list {title} {variant_title}, {fmt_title}", 1, measured, note))
                    facts[f"list {key} {variant} {fmt}"] = measured.p50
    section.notes.append(f"throughput is lists per second; each list returns {count:,} objects")
    section.notes.append(
        "requests ask for identity encoding, except the gzip rows (Go clients ask for gzip by default); "
        "sizes are of the body as sent"
    )
    return section, facts
