"""Strategic-merge patch and server-side apply of a 50-container Deployment, one client.

The SMP changes the image and one env value of three containers, as `kubectl set image`/`set env`
would; the apply sends the whole manifest with a new image for every container, as JSON (what
`kubectl apply --server-side` sends). Every request changes the object, so each one runs the merge,
the managed-fields bookkeeping and a write. The latency is what the client sees: server time plus
one loopback round trip (about a quarter of a millisecond, see the HTTP ceiling anchor).
"""

from __future__ import annotations

from typing import Any

import aiohttp

from bench.client import CpuClock, drive, expect, open_session
from bench.objects import encode
from bench.plan import Plan
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.rest import JSON, ensure_namespace
from bench.server import ServerProcess

NAMESPACE = "bench-patch"
NAME = "wide"
CONTAINERS = 50
SMP = {"Content-Type": "application/strategic-merge-patch+json", "Accept": "application/json"}
APPLY = {"Content-Type": "application/apply-patch+yaml", "Accept": "application/json"}


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

        async def patch(index: int) -> None:
            await _send(session, url, encode(strategic_patch(index)), SMP)

        async def apply(index: int) -> None:
            await _send(session, f"{url}?fieldManager=bench&force=true", encode(deployment(f"applied-{index}")), APPLY)

        for key, title, operation in (("smp", "strategic-merge patch", patch), ("apply", "server-side apply", apply)):
            progress(f"patch: {title} x{plan.patch_ops}")
            measured = await drive(operation, count=plan.patch_ops, concurrency=1, clock=clock)
            section.add(*latency_row(title, 1, measured))
            facts[f"{key} p50"] = measured.p50
    section.notes.append(
        "latency as the client sees it: the server's time plus one loopback round trip over a kept-alive connection"
    )
    return section, facts


async def _send(session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]) -> None:
    async with session.patch(url, data=body, headers=headers) as response:
        await expect(response, 200)
