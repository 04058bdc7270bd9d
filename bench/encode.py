"""Encoding a list of pods in process, as the server encodes a list response: JSON, Protobuf and the Table view.

No server runs: the list is built here in the form the watch cache holds it (the bench's pod with
upstream's defaults, the metadata and managedFields a create records, and the status a kubelet
writes for a running pod), then encoded with the server's own `Format` objects and rendered with the
Pod column set the server's Table view uses. Each figure is the best of a few runs, so a run that
another process disturbed does not count. MB is 2^20 bytes, as in the rest of the report.
"""

from __future__ import annotations

import copy
import random
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from bench.objects import pod
from bench.progress import progress
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
REPEATS = 3
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


def served_pods(count: int) -> list[dict[str, Any]]:
    """`count` distinct pods of the template's shape: own names, uids, versions, times, nodes and IPs."""
    base = orjson.dumps(template())
    chance = random.Random(count)
    pods = []
    for index in range(count):
        obj = orjson.loads(base)
        created = _CREATED - timedelta(minutes=index)
        started = _rfc3339(created + _KUBELET_DELAY)
        metadata, status = obj["metadata"], obj["status"]
        metadata["name"] = f"bench-web-{TEMPLATE_HASH}-{index:05x}"
        metadata["uid"] = str(uuid.UUID(int=chance.getrandbits(128), version=4))
        metadata["resourceVersion"] = str(1_000 + index)
        metadata["creationTimestamp"] = _rfc3339(created)
        for entry in metadata["managedFields"]:
            entry["time"] = started if entry["manager"] == "kubelet" else _rfc3339(created)
        node = index % 100
        obj["spec"]["nodeName"] = f"node-{node:03d}"
        host_ip, pod_ip = f"10.0.{node // 256}.{node % 256}", f"10.244.{index // 256 % 256}.{index % 256}"
        status.update(hostIP=host_ip, hostIPs=[{"ip": host_ip}], podIP=pod_ip, podIPs=[{"ip": pod_ip}])
        status["startTime"] = _rfc3339(created)
        for condition in status["conditions"]:
            condition["lastTransitionTime"] = started
        status["containerStatuses"][0]["state"]["running"]["startedAt"] = started
        pods.append(obj)
    return pods


def pod_list(pods: list[dict[str, Any]]) -> dict[str, Any]:
    """The PodList a list handler hands to the encoder."""
    resource_version = str(1_000 + len(pods))
    return {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": resource_version}, "items": pods}


def best_of(repeats: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """The shortest of `repeats` wall-clock runs, and the last run's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def run(count: int = PODS, repeats: int = REPEATS) -> tuple[Section, Facts]:
    """Times the three encodings of a `count`-pod list; facts in bytes per second and seconds."""
    progress(f"encode: building {count:,} pods")
    listed = pod_list(served_pods(count))
    protobuf = protobuf_format(PROFILES["kubernetes"])
    columns = columns_for("", "Pod") or DEFAULT_COLUMNS
    include = check_include_object("")

    def render() -> dict[str, Any]:
        return table(
            listed["items"],
            columns,
            api_version=TABLE_VERSION,
            include_object=include,
            list_metadata=listed["metadata"],
        )

    section = Section(
        f"Encoding a list of {count:,} pods in process (best of {repeats})",
        ("encoding", "body", "time", "throughput"),
    )
    facts: Facts = {"encode objects": float(count)}
    for key, title, encode in (("json", "JSON (orjson)", JSON.encode), ("protobuf", "Protobuf", protobuf.encode)):
        progress(f"encode: {title}")
        seconds, body = best_of(repeats, lambda encode=encode: encode(listed))
        facts[f"encode {key}"] = len(body) / seconds
        section.add(title, size(len(body)), millis(seconds), rate(len(body) / seconds / MB, " MB/s"))
    progress("encode: Table")
    render_seconds, rendered = best_of(repeats, render)
    table_seconds, body = best_of(repeats, lambda: JSON.encode(render()))
    facts["encode table"] = table_seconds
    section.add("Table: rows and cells only", "", millis(render_seconds), "")
    section.add(
        f"Table: rendered and encoded as JSON (includeObject={include})",
        size(len(body)),
        millis(table_seconds),
        rate(count / table_seconds, " rows/s"),
    )
    section.notes.append(
        f"each pod is {size(len(JSON.encode(listed['items'][0])))} of JSON: the bench's pod with defaults, "
        "managedFields of a create and a kubelet status update, and a running pod's status"
    )
    section.notes.append(f"the Table has {len(rendered['columnDefinitions'])} columns; MB is 2^20 bytes")
    return section, facts
