"""Custom resource conversion in process: the `None` strategy and a conversion webhook over loopback TLS.

A list of 100 objects (the 2 KB custom object of the CEL scenario) stored in v1alpha1 and read as v1
is converted in one batch, as a list does; a get converts one object. The webhook is an aiohttp
HTTPS server with its own CA, served by this same process and event loop, so its figures include
the webhook's own work (decoding the review, renaming a field, encoding the answer) besides the
API server's (encoding the review, TLS, checking and restoring every converted object): an upper
bound of what the API server pays. Best of a few runs.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
import uvloop
from aiohttp import web

from bench.cel import widget
from bench.report import Facts, Section, rate
from svc.api.brand import KUBERNETES
from svc.apiserver.apiextensions.conversion import Converter, build_converter
from svc.apiserver.webhook_client import WebhookClient
from svc.testing.webhook_server import https_webhook, issue_webhook_tls

GROUP = "example.com"
BATCH = 100
CALLS = 50
REPEATS = 3


def _crd(conversion: dict[str, Any]) -> dict[str, Any]:
    versions = [{"name": "v1alpha1", "storage": True, "served": True}, {"name": "v1", "served": True}]
    return {"spec": {"group": GROUP, "versions": versions, "conversion": conversion}}


def _objects(count: int) -> list[dict[str, Any]]:
    return [{**widget(index), "apiVersion": f"{GROUP}/v1alpha1"} for index in range(count)]


async def _convert(request: web.Request) -> web.Response:
    review = orjson.loads(await request.read())
    wanted = review["request"]["desiredAPIVersion"]
    converted = []
    for obj in review["request"]["objects"]:
        spec = dict(obj["spec"])
        spec["size"] = spec.pop("replicas")
        converted.append({**obj, "apiVersion": wanted, "spec": spec})
    answer = {"uid": review["request"]["uid"], "convertedObjects": converted, "result": {"status": "Success"}}
    body = orjson.dumps({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": answer})
    return web.Response(body=body, content_type="application/json")


async def _per_object(converter: Converter, batch: int, calls: int) -> float:
    """Best seconds per object converting `calls` batches of `batch` objects to v1."""
    objects = _objects(batch)
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        for _ in range(calls):
            await converter.convert(objects, f"{GROUP}/v1")
        best = min(best, (time.perf_counter() - started) / (calls * batch))
    return best


async def measure(calls: int = CALLS) -> dict[str, float]:
    results = {}
    none = build_converter(_crd({"strategy": "None"}), webhooks=WebhookClient(), profile=KUBERNETES)
    results["none, list of 100"] = await _per_object(none, BATCH, calls * 10)
    results["none, get"] = await _per_object(none, 1, calls * 100)
    with tempfile.TemporaryDirectory(prefix="svc-bench-conversion-") as directory:
        tls = issue_webhook_tls(Path(directory), ["127.0.0.1"])
        async with https_webhook(_convert, tls, "/convert") as base:
            client = WebhookClient()
            webhook = {"url": f"{base}/convert", "caBundle": tls.ca_bundle}
            conversion = {
                "strategy": "Webhook",
                "webhook": {"clientConfig": webhook, "conversionReviewVersions": ["v1"]},
            }
            converter = build_converter(_crd(conversion), webhooks=client, profile=KUBERNETES)
            try:
                results["webhook, list of 100"] = await _per_object(converter, BATCH, calls)
                results["webhook, get"] = await _per_object(converter, 1, calls * 4)
            finally:
                await client.close()
    return results


async def run(calls: int = CALLS) -> tuple[Section, Facts]:
    results = await measure(calls)
    size = len(orjson.dumps(widget(0)))
    section = Section(
        f"Custom resource conversion in process, v1alpha1 to v1, a {size:,} byte object (best of {REPEATS})",
        ("strategy and read", "per object", "per call", "throughput"),
    )
    for name, seconds in results.items():
        per_call = seconds * (BATCH if "list" in name else 1)
        section.add(name, f"{seconds * 1e6:.1f} µs", f"{per_call * 1e3:.2f} ms", rate(1 / seconds, " objects/s"))
    section.notes.append(
        "the webhook is served by the same process over loopback HTTPS (keep-alive), so its rows include the "
        "webhook's own decoding, conversion and encoding"
    )
    facts = {f"conversion {name} per object": seconds for name, seconds in results.items()}
    return section, facts


if __name__ == "__main__":
    section, _ = uvloop.run(run(*(int(arg) for arg in sys.argv[1:2])))
    print(section.title)
    for row in section.rows:
        print(" | ".join(row))
