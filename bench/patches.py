"""Strategic-merge patch and server-side apply of a 50-container Deployment, one client.

The SMP changes the image and one env value of three containers, as `kubectl set image`/`set env`
would; the apply sends the whole manifest with a new image for every container, as JSON (what
`kubectl apply --server-side` sends); a second manager then applies only the replica count, as a
scaler does. Every request changes the object, so each one runs the merge, the managed-fields
bookkeeping and a write.

Three measures of the server's time per request: the latency the client sees (server time plus one
loopback round trip of about a quarter of a millisecond, see the HTTP ceiling anchor, so an upper
bound); the server process's CPU time over the batch divided by its requests (read from /proc: all
of its work for one request, TLS to storage); and, in this process, the patch machinery the PATCH
handler runs on the object as stored (decoding the body, the merge, field validation, managedFields),
which is the part of the request that grows with the object.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import aiohttp
import orjson

from bench.client import CpuClock, Measurement, drive, expect, open_session
from bench.collector import server_collector
from bench.objects import encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row, millis, rate
from bench.rest import JSON, ensure_namespace
from bench.server import ServerProcess
from svc.api.schemas import schema_for
from svc.machinery.apply import apply, default_ignored, update_managed_fields
from svc.machinery.field_validation import check_fields
from svc.machinery.patch.strategic import apply_strategic_merge_patch
from svc.wire.formats import YAML
from svc.wire.strict import decode_json_strict

NAMESPACE = "bench-patch"
NAME = "wide"
CONTAINERS = 50
SMP = {"Content-Type": "application/strategic-merge-patch+json", "Accept": "application/json"}
APPLY = {"Content-Type": "application/apply-patch+yaml", "Accept": "application/json"}
PATCHER = "bench-patcher"
APPLIER = "bench"
SCALER = "bench-scaler"
DEFINITION = "io.k8s.api.apps.v1.Deployment"
# Deployments have a status subresource: writes to the main resource neither own nor compare status.
IGNORED = default_ignored(status_subresource=True)
OPERATION_TIME = "2026-01-05T09:30:00Z"


def _container(index: int, image: str) -> dict[str, Any]:
    return {
        "name": f"c{index:02d}",
        "image": f"registry.example/{image}:{index}",
        "ports": [{"name": f"http-{index}", "containerPort": 8000 + index, "protocol": "TCP"}],
        "env": [{"name": f"SETTING_{value}", "value": f"value-{value}"} for value in range(4)],
        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "1", "memory": "256Mi"}},
        "volumeMounts": [{"name": "data", "mountPath": f"/data/{index}"}],
    }


def deployment(image: str) -> dict[str, Any]:
    """The manifest: 50 containers with ports, env, resources and a volume mount each."""
    labels = {"app": NAME}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "volumes": [{"name": "data", "emptyDir": {}}],
                    "containers": [_container(index, image) for index in range(CONTAINERS)],
                },
            },
        },
    }


def strategic_patch(round_: int) -> dict[str, Any]:
    changed = [
        {
            "name": f"c{index:02d}",
            "image": f"registry.example/patched-{round_}:{index}",
            "env": [{"name": "SETTING_1", "value": f"round-{round_}"}],
        }
        for index in range(3)
    ]
    return {"spec": {"template": {"spec": {"containers": changed}}}}


def scale(round_: int) -> dict[str, Any]:
    """The second manager's configuration: the replica count only, a new one each round (no pods run)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {"replicas": 2 + round_},
    }


def applied(round_: int) -> dict[str, Any]:
    """The first manager's configuration: the whole manifest, with a new image for every container."""
    return deployment(f"applied-{round_}")


class Request(NamedTuple):
    """One kind of PATCH: its fact key, its row title, the body of request i, its headers, its manager."""

    key: str
    title: str
    body: Callable[[int], dict[str, Any]]
    headers: dict[str, str]
    manager: str

    def query(self) -> str:
        force = "&force=true" if self.headers is APPLY else ""
        return f"?fieldManager={self.manager}{force}"


REQUESTS = (
    Request("smp", "strategic-merge patch", strategic_patch, SMP, PATCHER),
    Request("apply", "server-side apply", applied, APPLY, APPLIER),
    Request("scale", "server-side apply by a second manager (replicas only)", scale, APPLY, SCALER),
)


async def run(server: ServerProcess, plan: Plan) -> tuple[Section, Facts]:
    section = Section(f"Patching a Deployment of {CONTAINERS} containers (one client)", LATENCY_HEADERS)
    facts: Facts = {}
    clock = CpuClock(server.cpu)
    async with open_session(server.credentials.ssl_context(), 1) as session:
        await ensure_namespace(session, server.url, NAMESPACE)
        collection = f"{server.url}/apis/apps/v1/namespaces/{NAMESPACE}/deployments"
        async with session.post(collection, data=encode(deployment("created")), headers=JSON) as response:
            await expect(response, 201)
        url = f"{collection}/{NAME}"
        for request in REQUESTS:
            progress(f"patch: {request.title} x{plan.patch_ops}")
            send = _sender(session, url + request.query(), request)
            measured = await drive(send, count=plan.patch_ops, concurrency=1, clock=clock)
            server_time = measured.server_cpu / measured.ops if measured.ops else math.nan
            section.add(*latency_row(request.title, 1, measured, f"server CPU {millis(server_time)} per request"))
            key = request.key
            facts.update({f"{key} p50": measured.p50, f"{key} p99": measured.p99, f"{key} server cpu": server_time})
        async with session.get(url, headers=JSON) as response:
            stored = orjson.loads(await expect(response, 200))
    for request in REQUESTS:
        progress(f"patch: {request.title} x{plan.patch_ops}, in process")
        measured = time_in_process(_machinery(request, stored), request.body, plan.patch_ops)
        section.add(
            f"{request.title}: patch machinery",
            "in process",
            f"{measured.ops:,}",
            rate(measured.rate),
            millis(measured.p50),
            millis(measured.p99),
            "the handler's decode, merge, field validation and managedFields work on the stored object",
        )
        facts[f"{request.key} in process p50"] = measured.p50
    section.notes += [
        "latency as the client sees it: the server's time plus one loopback round trip over a kept-alive "
        "connection, so an upper bound of the server's time",
        "server CPU per request: the server process's CPU time over the batch (from /proc) divided by its requests",
    ]
    return section, facts


def _sender(session: aiohttp.ClientSession, url: str, request: Request) -> Callable[[int], Awaitable[None]]:
    async def send(index: int) -> None:
        async with session.patch(url, data=encode(request.body(index)), headers=request.headers) as response:
            await expect(response, 200)

    return send


def _machinery(request: Request, stored: dict[str, Any]) -> Callable[[bytes], object]:
    """What the PATCH handler computes for one such request against `stored`, short of storage."""
    schema = schema_for(DEFINITION)
    common = {"manager": request.manager, "operation_time": OPERATION_TIME, "schema": schema, "ignored": IGNORED}
    if request.headers is SMP:

        def patch(body: bytes) -> object:
            document, duplicates = decode_json_strict(body)
            patched = apply_strategic_merge_patch(stored, document, schema)
            check_fields(patched, schema, duplicates=duplicates, sort_keys=True)
            return update_managed_fields(stored, patched, **common)

        return patch

    def apply_body(body: bytes) -> object:
        return apply(stored, YAML.decode(body), force=True, **common)

    return apply_body


def time_in_process(work: Callable[[bytes], object], body: Callable[[int], dict[str, Any]], count: int) -> Measurement:
    """`work` on the encoded body of request i, for i in range(count), each timed on its own.

    It runs under the server's collector settings (bench.collector).
    """
    bodies = [encode(body(index)) for index in range(count)]
    latencies = []
    with server_collector():
        started = time.perf_counter()
        for encoded in bodies:
            before = time.perf_counter()
            work(encoded)
            latencies.append(time.perf_counter() - before)
        seconds = time.perf_counter() - started
    return Measurement(ops=count, seconds=seconds, latencies=sorted(latencies))
