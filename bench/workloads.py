"""Workloads: Deployments rolled out by the controller daemon onto simulated nodes.

One server, `svc-controller-manager` (deployment, replicaset, garbage collector and serviceaccount controllers:
the ServiceAccount admission plugin refuses pods until a namespace's default account exists) and `svc-nodes` (enough
nodes for every pod, ready delay 0) run as separate processes. Two timings, each from the first write
to the last Deployment reporting every replica updated and available: one Deployment of many
replicas created; then many Deployments of 10 replicas created, rolled out, and their image changed
at once. The CPU seconds of each process during each phase name the busiest one.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson

from bench.client import expect, open_session
from bench.plan import Plan
from bench.procfs import cpu_seconds, rss_bytes
from bench.progress import progress
from bench.report import Facts, Section
from bench.rest import JSON, ensure_namespace
from bench.server import ServerProcess, start_server

HEADERS = ("phase", "pods", "wall", "apiserver CPU", "controllers CPU", "nodes CPU", "notes")
NAMESPACE = "bench-workloads"
PODS_PER_NODE = 110
_POLL = 0.2


def deployment(name: str, replicas: int, image: str) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": image}]}},
        },
    }


def start_daemon(module: str, log: Path, *arguments: str) -> subprocess.Popen[bytes]:
    """`python -m module arguments` with this environment, its output appended to `log`."""
    with log.open("ab") as output:
        return subprocess.Popen(
            [sys.executable, "-m", module, *arguments], env=dict(os.environ), stdout=output, stderr=subprocess.STDOUT
        )


def stop_daemon(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 30 s: a daemon that hangs on shutdown must not hang the bench."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class _Cpu:
    def __init__(self, *pids: int) -> None:
        self.pids = pids
        self.start = [cpu_seconds(pid) for pid in pids]

    def spent(self) -> list[float]:
        return [cpu_seconds(pid) - start for pid, start in zip(self.pids, self.start, strict=True)]


async def _rolled_out(session, base: str, names: list[str], replicas: int, image: str, within: float) -> None:
    """Wait until every named Deployment has all replicas updated and available with `image`."""
    deadline = time.perf_counter() + within
    pending = set(names)
    while pending and time.perf_counter() < deadline:
        async with session.get(f"{base}?limit=500") as response:
            listed = orjson.loads(await expect(response, 200))
        for item in listed["items"]:
            status = item.get("status") or {}
            done = (
                item["metadata"]["name"] in pending
                and item["spec"]["template"]["spec"]["containers"][0]["image"] == image
                and status.get("observedGeneration", 0) >= item["metadata"].get("generation", 0)
                and status.get("updatedReplicas") == replicas
                and status.get("availableReplicas") == replicas
                and status.get("replicas") == replicas
            )
            if done:
                pending.discard(item["metadata"]["name"])
        if pending:
            await asyncio.sleep(_POLL)
    if pending:
        raise TimeoutError(f"{len(pending)} Deployment(s) not rolled out within {within:.0f} s")


async def _phase(section: Section, label: str, pods: int, cpu: _Cpu, started: float, notes: str = "") -> float:
    wall = time.perf_counter() - started
    spent = cpu.spent()
    section.add(label, f"{pods:,}", f"{wall:.1f} s", *(f"{seconds:.1f} s" for seconds in spent), notes)
    return wall


async def run(workdir: Path, plan: Plan) -> tuple[Section, Facts]:
    replicas, count = plan.rollout_replicas, plan.rollout_deployments
    section = Section("Workloads: Deployments rolled out onto simulated nodes", HEADERS)
    server: ServerProcess = await start_server(workdir / "workloads")
    kubeconfig = str(server.data_dir / "admin.kubeconfig")
    nodes_needed = max(3, -(-max(replicas, count * 10) * 5 // 4 // PODS_PER_NODE))
    controllers = start_daemon(
        "svc.controllers",
        workdir / "controllers.log",
        f"--kubeconfig={kubeconfig}",
        "--brand-profile=kubernetes",
        "--controllers=deployment,replicaset,garbagecollector,serviceaccount",
        "--leader-elect=false",
        "--secure-port=0",
        "--kube-api-qps=0",
    )
    simulator = start_daemon(
        "svc.nodes",
        workdir / "nodes.log",
        f"--kubeconfig={kubeconfig}",
        "--brand-profile=kubernetes",
        f"--count={nodes_needed}",
        f"--max-pods={PODS_PER_NODE}",
    )
    facts: Facts = {}
    try:
        async with open_session(server.credentials.ssl_context(), 16) as session:
            await ensure_namespace(session, server.url, NAMESPACE)
            base = f"{server.url}/apis/apps/v1/namespaces/{NAMESPACE}/deployments"
            await asyncio.sleep(2.0)  # the daemons list and watch before the first write
            progress(f"workloads: one Deployment of {replicas:,} replicas on {nodes_needed} nodes")
            cpu = _Cpu(server.pid, controllers.pid, simulator.pid)
            started = time.perf_counter()
            async with session.post(
                base, data=orjson.dumps(deployment("big", replicas, "nginx:1")), headers=JSON
            ) as response:
                await expect(response, 201)
            await _rolled_out(session, base, ["big"], replicas, "nginx:1", 600)
            facts["rollout seconds"] = await _phase(section, "1 Deployment created", replicas, cpu, started)
            async with session.delete(f"{base}/big") as response:
                await expect(response, 200)
            names = [f"app-{index}" for index in range(count)]
            progress(f"workloads: {count} Deployments of 10 replicas")
            cpu = _Cpu(server.pid, controllers.pid, simulator.pid)
            started = time.perf_counter()
            await asyncio.gather(*(_create(session, base, deployment(name, 10, "nginx:1")) for name in names))
            await _rolled_out(session, base, names, 10, "nginx:1", 600)
            await _phase(section, f"{count} Deployments created", count * 10, cpu, started)
            cpu = _Cpu(server.pid, controllers.pid, simulator.pid)
            started = time.perf_counter()
            patch = orjson.dumps({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}}})
            await asyncio.gather(*(_patch(session, f"{base}/{name}", patch) for name in names))
            await _rolled_out(session, base, names, 10, "nginx:2", 600)
            facts["update seconds"] = await _phase(
                section,
                f"{count} Deployments updated at once",
                count * 10,
                cpu,
                started,
                f"RSS after: apiserver {rss_bytes(server.pid) / 2**20:.0f} MiB",
            )
    finally:
        stop_daemon(simulator)
        stop_daemon(controllers)
        server.stop()
    section.notes.append(
        "Targets (issue 19): 1,000 replicas rolled out in under 30 s; 100 Deployments of 10 updated at once in "
        "under 60 s. Wall time is from the first write to the last Deployment fully updated and available."
    )
    return section, facts


async def _create(session, base: str, body: dict) -> None:
    async with session.post(base, data=orjson.dumps(body), headers=JSON) as response:
        await expect(response, 201)


async def _patch(session, url: str, body: bytes) -> None:
    headers = {"Content-Type": "application/strategic-merge-patch+json"}
    async with session.patch(url, data=body, headers=headers) as response:
        await expect(response, 200)
