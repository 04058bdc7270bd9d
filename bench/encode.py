"""Encoding a list of pods in process, as the server encodes a list response: JSON, Protobuf and the Table view.

No server runs: the list is built here in the form the watch cache holds it (the bench's pod with
upstream's defaults, the metadata and managedFields a create records, and the status a kubelet
writes for a running pod), then encoded with the server's own `Format` objects and rendered with the
Pod column set the server's Table view uses. Each figure is the best of a few runs, so a run that
another process disturbed does not count. MB is 2^20 bytes, as in the rest of the report.
"""

from __future__ import annotations

import asyncio
import copy
import os
import random
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from bench.collector import server_collector
from bench.objects import pod
from bench.progress import STARTED, STARTED_VARIABLE, progress
from bench.report import Facts, Section, millis, rate, size
from svc.api.brand import PROFILES
from svc.api.columns import columns_for
from svc.api.defaults import apply_defaults
from svc.api.schemas import Schema
from svc.machinery.apply import default_ignored, update_managed_fields
from svc.wire.formats import JSON
from svc.wire.protobuf_format import protobuf_format
from svc.wire.views import DEFAULT_COLUMNS, check_include_object, table

PODS = 10_000
ROOT = Path(__file__).resolve().parent.parent
REPEATS = 5
MB = 1 << 20
NAMESPACE = "bench-encode"
TEMPLATE_HASH = "7d9c8b6f5d"
TABLE_VERSION = "meta.k8s.io/v1"
_CREATED = datetime(2026, 1, 5, 9, 30, tzinfo=UTC)
_KUBELET_DELAY = timedelta(seconds=4)


def _rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _status(created: datetime) -> dict[str, Any]:
    """What the kubelet reports for the pod's one container once it runs and is ready."""
    started = _rfc3339(created + _KUBELET_DELAY)
    conditions = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
    return {
        "phase": "Running",
        "conditions": [
            {"type": kind, "status": "True", "lastProbeTime": None, "lastTransitionTime": started}
            for kind in conditions
        ],
        "hostIP": "10.0.0.0",
        "hostIPs": [{"ip": "10.0.0.0"}],
        "podIP": "10.244.0.0",
        "podIPs": [{"ip": "10.244.0.0"}],
        "startTime": _rfc3339(created),
        "containerStatuses": [
            {
                "name": "web",
                "state": {"running": {"startedAt": started}},
                "lastState": {},
                "ready": True,
                "restartCount": 0,
                "image": "registry.example/bench/web:1.27.3",
                "imageID": "registry.example/bench/web@sha256:" + "5c1d" * 16,
                "containerID": "containerd://" + "9f3e" * 16,
                "started": True,
            }
        ],
        "qosClass": "Burstable",
    }


def template() -> dict[str, Any]:
    """One served pod: created by a ReplicaSet's controller, scheduled, and updated by its kubelet.

    managedFields come from the server's own field manager, so their size and shape are those of a
    real create plus a status update.
    """
    profile = PROFILES["kubernetes"]
    schema = Schema.named("io.k8s.api.core.v1.Pod")
    created = _rfc3339(_CREATED)
    obj = pod(f"bench-web-{TEMPLATE_HASH}-00000")
    metadata = obj["metadata"]
    metadata["generateName"] = f"bench-web-{TEMPLATE_HASH}-"
    metadata["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": f"bench-web-{TEMPLATE_HASH}",
            "uid": "3f0b7c52-1d9e-4a86-b2c4-7e5d9a1f0c38",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    obj["spec"]["nodeName"] = "node-000"
    apply_defaults("", "Pod", obj, profile=profile)
    obj = update_managed_fields(
        None,
        obj,
        manager="kube-controller-manager",
        operation_time=created,
        schema=schema,
        ignored=default_ignored(status_subresource=True),
    )
    live = copy.deepcopy(obj)
    obj["status"] = _status(_CREATED)
    obj = update_managed_fields(
        live,
        obj,
        manager="kubelet",
        operation_time=_rfc3339(_CREATED + _KUBELET_DELAY),
        subresource="status",
        schema=schema,
        ignored=default_ignored(status_subresource=True, subresource="status"),
    )
    metadata = obj["metadata"]
    metadata.update(namespace=NAMESPACE, generation=1, creationTimestamp=created)
    return obj


def served_pods(count: int, *, run: int = 0, shared: bool = True) -> list[dict[str, Any]]:
    """`count` distinct pods of the template's shape: own names, uids, versions, times, nodes and IPs.

    Each `run` gives pods no earlier run gave (times a day apart, other uids), so no cache a run
    fills serves the next. `shared` pods come from one template, as a ReplicaSet's do: their
    containers, volumes, tolerations and owner are equal. Without it each pod has its own.
    """
    base = orjson.dumps(template())
    chance = random.Random(count * 1_000 + run)
    pods = []
    for index in range(count):
        obj = orjson.loads(base)
        created = _CREATED - timedelta(days=run, minutes=index)
        started = _rfc3339(created + _KUBELET_DELAY)
        metadata, spec, status = obj["metadata"], obj["spec"], obj["status"]
        metadata["name"] = f"bench-web-{TEMPLATE_HASH}-{index:05x}"
        metadata["uid"] = str(uuid.UUID(int=chance.getrandbits(128), version=4))
        metadata["resourceVersion"] = str(1_000 + index)
        metadata["creationTimestamp"] = _rfc3339(created)
        for entry in metadata["managedFields"]:
            entry["time"] = started if entry["manager"] == "kubelet" else _rfc3339(created)
        node = index % 100
        spec["nodeName"] = f"node-{node:03d}"
        host_ip, pod_ip = f"10.0.{node // 256}.{node % 256}", f"10.244.{index // 256 % 256}.{index % 256}"
        status.update(hostIP=host_ip, hostIPs=[{"ip": host_ip}], podIP=pod_ip, podIPs=[{"ip": pod_ip}])
        status["startTime"] = _rfc3339(created)
        for condition in status["conditions"]:
            condition["lastTransitionTime"] = started
        status["containerStatuses"][0]["state"]["running"]["startedAt"] = started
        if not shared:
            _own_template(obj, index, chance)
        pods.append(obj)
    return pods


def _own_template(obj: dict[str, Any], index: int, chance: random.Random) -> None:
    """The pod's containers, volumes, tolerations and owner made its own, as if no other pod shared its
    template."""
    spec = obj["spec"]
    for container in spec["containers"]:
        container["image"] += f"-{index}"
    for volume in spec["volumes"]:
        volume["name"] += f"-{index}"
    for container in spec["containers"]:
        for mount in container.get("volumeMounts", []):
            mount["name"] += f"-{index}"
    for toleration in spec["tolerations"]:
        toleration["tolerationSeconds"] = 300 + index
    for owner in obj["metadata"]["ownerReferences"]:
        owner["name"] += f"-{index}"
        owner["uid"] = str(uuid.UUID(int=chance.getrandbits(128), version=4))


def pod_list(pods: list[dict[str, Any]]) -> dict[str, Any]:
    """The PodList a list handler hands to the encoder."""
    resource_version = str(1_000 + len(pods))
    return {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": resource_version}, "items": pods}


# The parts, each run in an interpreter of its own (run_in_fresh_process): the pods of one template
# as JSON, as Protobuf and as a Table, and pods of their own templates as Protobuf.
PARTS = ("json", "protobuf", "protobuf unshared", "table")
Timed = dict[str, tuple[float, int]]


def fastest(repeats: int, count: int, works: dict[str, Callable[[dict[str, Any]], Any]], *, shared: bool) -> Timed:
    """Per work, the shortest time it takes on a list of `count` pods, and the size of its result.

    Each run builds a list no earlier run saw, so no cache one run fills serves the next (each work
    reads the run's list once; none fills a cache another reads), and times under the server's
    collector settings.
    """
    found: Timed = {name: (float("inf"), 0) for name in works}
    for run in range(repeats):
        listed = pod_list(served_pods(count, run=run, shared=shared))
        for name, work in works.items():
            with server_collector():
                started = time.perf_counter()
                result = work(listed)
                seconds = time.perf_counter() - started
            found[name] = (min(found[name][0], seconds), len(result))
        del listed
    return found


def measure(part: str, count: int, repeats: int) -> Timed:
    """One part's timings."""
    progress(f"encode: {part}, {repeats} lists of {count:,} pods")
    if part == "json":
        return fastest(repeats, count, {"json": JSON.encode}, shared=True)
    protobuf = protobuf_format(PROFILES["kubernetes"])
    if part == "protobuf":
        return fastest(repeats, count, {"protobuf": protobuf.encode}, shared=True)
    if part == "protobuf unshared":
        return fastest(repeats, count, {"protobuf unshared": protobuf.encode}, shared=False)
    columns = columns_for("", "Pod") or DEFAULT_COLUMNS

    def render(listed: dict[str, Any]) -> dict[str, Any]:
        return table(
            listed["items"],
            columns,
            api_version=TABLE_VERSION,
            include_object=check_include_object(""),
            metadata=listed["metadata"],
        )

    works = {"rows": lambda listed: render(listed)["rows"], "table": lambda listed: JSON.encode(render(listed))}
    return fastest(repeats, count, works, shared=True)


def report(count: int, repeats: int, timed: Timed) -> tuple[Section, Facts]:
    """The section and facts of both parts' timings; facts in bytes per second and seconds."""
    section = Section(
        f"Encoding a list of {count:,} pods in process (best of {repeats})",
        ("encoding", "body", "time", "throughput"),
    )
    facts: Facts = {"encode objects": float(count)}
    for key, title in (
        ("json", "JSON (orjson)"),
        ("protobuf", "Protobuf"),
        ("protobuf unshared", "Protobuf, no two pods of one template"),
    ):
        seconds, body = timed[key]
        facts[f"encode {key}"] = body / seconds
        section.add(title, size(body), millis(seconds), rate(body / seconds / MB, " MB/s"))
    table_seconds, body = timed["table"]
    facts["encode table"] = table_seconds
    section.add("Table: rows and cells only", "", millis(timed["rows"][0]), "")
    section.add(
        f"Table: rendered and encoded as JSON (includeObject={check_include_object('')})",
        size(body),
        millis(table_seconds),
        rate(count / table_seconds, " rows/s"),
    )
    section.notes.append(
        f"each pod is {size(len(JSON.encode(served_pods(1)[0])))} of JSON: the bench's pod with defaults, "
        "managedFields of a create and a kubelet status update, and a running pod's status; the pods of "
        "a list share one template (containers, volumes, tolerations, owner) unless the row says not"
    )
    columns = len(columns_for("", "Pod") or DEFAULT_COLUMNS)
    section.notes.append(
        "each run encodes pods no earlier run saw, under the server's collector settings; "
        f"the Table has {columns} columns; MB is 2^20 bytes"
    )
    return section, facts


def run(count: int = PODS, repeats: int = REPEATS) -> tuple[Section, Facts]:
    """Both parts in this process."""
    timed: Timed = {}
    for part in PARTS:
        timed.update(measure(part, count, repeats))
    return report(count, repeats, timed)


async def run_in_fresh_process(count: int = PODS, repeats: int = REPEATS) -> tuple[Section, Facts]:
    """Each part in a new interpreter. A process that has built and dropped many objects (the bench
    process by this scenario, or the first part for the second) has a scattered heap, which made
    encoding up to a third slower than in a process that has done nothing else: that measured the
    process's history, not the encoders."""
    timed: Timed = {}
    for part in PARTS:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.encode",
            part,
            str(count),
            str(repeats),
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            env={**os.environ, STARTED_VARIABLE: str(STARTED)},
        )
        output, _ = await process.communicate()
        if process.returncode:
            raise RuntimeError(f"python -m bench.encode {part} exited with status {process.returncode}")
        timed.update({name: (seconds, body) for name, (seconds, body) in orjson.loads(output).items()})
    return report(count, repeats, timed)


if __name__ == "__main__":
    sys.stdout.buffer.write(orjson.dumps(measure(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
