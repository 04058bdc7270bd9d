"""Helpers of the aggregator tests: a metrics extension server, waiting for an APIService's condition."""

from __future__ import annotations

import time
from typing import Any

from svc.client.rest import RestClient
from svc.testing.extension_server import ExtensionApi, metrics_api, node_metrics, pod_metrics

APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
METRICS_APISERVICE = f"{APISERVICES}/v1beta1.metrics.k8s.io"


def metrics() -> ExtensionApi:
    return metrics_api(
        lambda: [node_metrics("node-a", "250m", "512Mi")],
        lambda: [pod_metrics("default", "web-1", {"app": ("120m", "64Mi")}, {"app": "web"})],
    )


def available(client: RestClient, path: str = METRICS_APISERVICE) -> dict[str, Any] | None:
    response = client.request("GET", path)
    if response.status != 200:
        return None
    return next(
        (c for c in (response.json().get("status") or {}).get("conditions") or () if c["type"] == "Available"), None
    )


def wait_for_available(
    client: RestClient, status: str, path: str = METRICS_APISERVICE, seconds: float = 15.0, reason: str = ""
) -> dict[str, Any]:
    """The Available condition once it has `status` (and `reason`, when given); bounded in time."""
    deadline = time.monotonic() + seconds
    last = None
    for _ in range(int(seconds / 0.1) + 1):
        last = available(client, path)
        if last is not None and last["status"] == status and (not reason or last["reason"] == reason):
            return last
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    raise AssertionError(f"{path}: Available never became {status} {reason}: last {last}")
