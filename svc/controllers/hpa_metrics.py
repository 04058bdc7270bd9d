"""HPA proposals from the custom and external metrics APIs: the Pods, Object and External metric sources.

Upstream's HPA reads these through the aggregation layer, from whatever extension server is registered
for the group (a Prometheus adapter, KEDA, ...):
- Pods: `custom.metrics.k8s.io/v1beta2` `namespaces/<ns>/pods/*/<metric>?labelSelector=<target's pods>`,
  one value per pod, averaged and compared with `averageValue` as for an average-value resource metric;
- Object: `custom.metrics.k8s.io/v1beta2` `namespaces/<ns>/<resource>/<name>/<metric>` (a Namespace is
  `namespaces/<ns>/metrics/<metric>`), one value describing an object, against `value` (scaling the
  ready pods by the ratio) or `averageValue` (the value spread over the replicas);
- External: `external.metrics.k8s.io/v1beta1` `namespaces/<ns>/<metric>?labelSelector=<metric selector>`,
  the values summed, with the same two targets as Object.
The metric's own `selector` goes to the custom metrics API as `metricLabelSelector`. Error texts, metric
names in the ScalingActive message and the statuses written are upstream's (including its naming of an
Object average-value metric "external metric").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote

from svc.api.brand import Profile
from svc.api.columns.selectors import selector_struct_string
from svc.client.aio import ApiError, error_message, resource_path
from svc.controllers import hpa_replicas as replicas
from svc.machinery.labels import SelectorError, label_selector_from_dict

Obj = dict[str, Any]
CUSTOM_VERSION = "v1beta2"
EXTERNAL_VERSION = "v1beta1"
_DEFAULT_WINDOW = 60.0
"""Upstream's window of a custom metric that states none (`metricServerDefaultMetricWindow`)."""


class Client(Protocol):
    async def get(self, path: str, **params: str) -> Obj: ...


class MetricError(Exception):
    """One metric gave no proposal: the ScalingActive reason and the error text."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Proposal:
    replicas: int
    name: str
    """How the ScalingActive message names the metric."""
    status: Obj
    """The metric's entry of `status.currentMetrics`."""


@dataclass(frozen=True)
class Target:
    """What the HPA's target offers every metric of one sync."""

    namespace: str
    spec_replicas: int
    status_replicas: int
    selector: str
    pods: list[Obj]
    tolerances: replicas.Tolerances
    readiness: replicas.Readiness
    now: float


@contextmanager
def decoding(failure: str) -> Iterator[None]:
    """Reading a metrics API's answer: a value that is no quantity or a timestamp that does not parse
    fails the fetch as `failure: <why>`, as upstream's client fails on a response it cannot decode,
    so the HPA reports it (Event, ScalingActive condition) instead of failing its sync."""
    try:
        yield
    except (ValueError, TypeError) as error:
        raise replicas.ReplicaCalculationError(f"{failure}: {error}") from None


async def resource_for_kind(client: Client, api_version: str, kind: str) -> tuple[str, str, str]:
    """(group, version, resource) of `kind` in `api_version`, from discovery (so CRDs are found)."""
    group, _, version = (api_version or "v1").rpartition("/")
    listing = await client.get(resource_path(group, version, "").rstrip("/"))
    for entry in listing.get("resources") or ():
        if entry.get("kind") == kind and "/" not in entry.get("name", ""):
            return group, version, entry["name"]
    raise ApiError(404, {"message": f'no matches for kind "{kind}" in group "{group}"'})


def _metric_selector(metric: Obj) -> str:
    """The metric's selector in selector syntax (none and empty are both no restriction)."""
    return str(label_selector_from_dict(metric.get("selector")))


def _identifier(metric: Obj) -> Obj:
    identifier: Obj = {"name": metric.get("name") or ""}
    if metric.get("selector") is not None:
        identifier["selector"] = metric["selector"]
    return identifier


def _go_selector(metric: Obj) -> str:
    """The selector as upstream's `%+v` prints the pointer: `nil`, or the generated struct text."""
    selector = metric.get("selector")
    return "nil" if selector is None else selector_struct_string(selector)


class MetricsReader:
    """Reads the custom and external metrics APIs, with upstream's metrics-client error texts."""

    def __init__(self, client: Client, profile: Profile) -> None:
        self.client = client
        self.custom_group = profile.group("custom.metrics.k8s.io")
        self.external_group = profile.group("external.metrics.k8s.io")

    async def _custom(self, path: str, params: Mapping[str, str]) -> Obj:
        try:
            return await self.client.get(path, **params)
        except (ApiError, OSError) as error:
            message = error_message(error)
            if isinstance(error, ApiError) and error.code == 404 and not await self._custom_served():
                message = f"no custom metrics API ({self.custom_group}) registered"
            raise replicas.ReplicaCalculationError(
                f"unable to fetch metrics from custom metrics API: {message}"
            ) from None

    async def _custom_served(self) -> bool:
        try:
            await self.client.get(f"/apis/{self.custom_group}")
        except (ApiError, OSError):
            return False
        return True

    async def pod_values(
        self, namespace: str, metric: str, selector: str, metric_selector: str
    ) -> dict[str, replicas.PodMetric]:
        """Upstream's `GetRawMetric`: each pod's value of `metric`, by pod name."""
        path = resource_path(self.custom_group, CUSTOM_VERSION, "pods", namespace=namespace, name="*")
        params = {"labelSelector": selector, **({"metricLabelSelector": metric_selector} if metric_selector else {})}
        listed = await self._custom(f"{path}/{quote(metric, safe='')}", params)
        items = listed.get("items") or []
        if not items:
            raise replicas.ReplicaCalculationError("no metrics returned from custom metrics API")
        values = {}
        with decoding("unable to fetch metrics from custom metrics API"):
            for item in items:
                window = item.get("windowSeconds")
                values[(item.get("describedObject") or {}).get("name") or ""] = replicas.PodMetric(
                    replicas.milli_value(item.get("value") or "0"),
                    replicas.parse_time(item.get("timestamp")) or 0.0,
                    float(window) if window is not None else _DEFAULT_WINDOW,
                )
        return values

    async def object_value(self, namespace: str, metric: str, described: Obj, metric_selector: str) -> int:
        """Upstream's `GetObjectMetric`: the value of `metric` for one object, in milli-units."""
        api_version, kind = described.get("apiVersion") or "", described.get("kind") or ""
        group = api_version.rpartition("/")[0]
        if kind == "Namespace" and not group:
            path = resource_path(self.custom_group, CUSTOM_VERSION, "metrics", namespace=namespace, name=metric)
        else:
            try:
                found_group, _, resource = await resource_for_kind(self.client, api_version, kind)
            except (ApiError, OSError) as error:
                group_kind = f"{kind}.{group}" if group else kind
                raise replicas.ReplicaCalculationError(
                    f"unable to fetch metrics from custom metrics API: unable to map kind {group_kind} to resource: "
                    f"{error_message(error)}"
                ) from None
            qualified = f"{resource}.{found_group}" if found_group else resource
            path = resource_path(
                self.custom_group, CUSTOM_VERSION, qualified, namespace=namespace, name=described.get("name") or ""
            )
            path = f"{path}/{quote(metric, safe='')}"
        listed = await self._custom(path, {"metricLabelSelector": metric_selector} if metric_selector else {})
        items = listed.get("items") or []
        if len(items) != 1:
            raise replicas.ReplicaCalculationError(
                "unable to fetch metrics from custom metrics API: the custom metrics API server returned "
                f"{len(items)} results when we asked for exactly one"
            )
        with decoding("unable to fetch metrics from custom metrics API"):
            return replicas.milli_value(items[0].get("value") or "0")

    async def external_values(self, namespace: str, metric: str, metric_selector: str) -> list[int]:
        """Upstream's `GetExternalMetric`: every value of `metric` the selector picks, in milli-units."""
        path = resource_path(self.external_group, EXTERNAL_VERSION, metric, namespace=namespace)
        try:
            listed = await self.client.get(path, **({"labelSelector": metric_selector} if metric_selector else {}))
        except (ApiError, OSError) as error:
            raise replicas.ReplicaCalculationError(
                f"unable to fetch metrics from external metrics API: {error_message(error)}"
            ) from None
        items = listed.get("items") or []
        if not items:
            raise replicas.ReplicaCalculationError("no metrics returned from external metrics API")
        with decoding("unable to fetch metrics from external metrics API"):
            return [replicas.milli_value(item.get("value") or "0") for item in items]


async def pods_proposal(reader: MetricsReader, source: Obj, target: Target) -> Proposal:
    """Upstream's `computeStatusForPodsMetric`."""
    metric = source.get("metric") or {}
    name = metric.get("name") or ""
    try:
        metric_selector = _metric_selector(metric)
        try:
            samples = await reader.pod_values(target.namespace, name, target.selector, metric_selector)
        except replicas.ReplicaCalculationError as error:
            raise replicas.ReplicaCalculationError(f"unable to get metric {name}: {error}") from None
        recommendation = replicas.resource_replicas(
            target.spec_replicas,
            target.pods,
            samples,
            "",
            target_average_value=replicas.milli_value((source.get("target") or {}).get("averageValue") or "0"),
            tolerances=target.tolerances,
            readiness=target.readiness,
            now=target.now,
        )
    except (replicas.ReplicaCalculationError, SelectorError) as error:
        raise MetricError("FailedGetPodsMetric", str(error)) from None
    status = {
        "type": "Pods",
        "pods": {
            "metric": _identifier(metric),
            "current": {"averageValue": replicas.milli_quantity(recommendation.raw_value)},
        },
    }
    return Proposal(recommendation.replicas, f"pods metric {name}", status)


async def object_proposal(reader: MetricsReader, source: Obj, target: Target) -> Proposal:
    """Upstream's `computeStatusForObjectMetric`: a `value` target scales the ready pods by the ratio;
    an `averageValue` target divides the value among the scale's current replicas."""
    metric, goal, described = (
        source.get("metric") or {},
        source.get("target") or {},
        source.get("describedObject") or {},
    )
    name = metric.get("name") or ""
    by_value = goal.get("type") == "Value" and goal.get("value") is not None
    by_average = goal.get("type") == "AverageValue" and goal.get("averageValue") is not None
    try:
        if not (by_value or by_average):
            raise replicas.ReplicaCalculationError(
                "invalid object metric source: neither a value target nor an average value target was set"
            )
        metric_selector = _metric_selector(metric)
        try:
            usage = await reader.object_value(target.namespace, name, described, metric_selector)
        except replicas.ReplicaCalculationError as error:
            raise replicas.ReplicaCalculationError(
                f"unable to get metric {name}: {described.get('kind') or ''} on {target.namespace} "
                f"{described.get('name') or ''}/{error}"
            ) from None
        if by_value:
            ratio = usage / replicas.milli_value(goal["value"])
            count = replicas.usage_ratio_replicas(target.spec_replicas, ratio, target.tolerances, target.pods)
        else:
            count, usage = replicas.per_pod_replicas(
                target.status_replicas, usage, replicas.milli_value(goal["averageValue"]), target.tolerances
            )
    except (replicas.ReplicaCalculationError, SelectorError) as error:
        raise MetricError("FailedGetObjectMetric", str(error)) from None
    if by_value:
        body = {
            "describedObject": described,
            "metric": _identifier(metric),
            "current": {"value": replicas.milli_quantity(usage)},
        }
        return Proposal(count, f"{described.get('kind') or ''} metric {name}", {"type": "Object", "object": body})
    body = {
        "describedObject": {"kind": "", "name": ""},
        "metric": _identifier(metric),
        "current": {"averageValue": replicas.milli_quantity(usage)},
    }
    return Proposal(count, f"external metric {name}({_go_selector(metric)})", {"type": "Object", "object": body})


async def external_proposal(reader: MetricsReader, source: Obj, target: Target) -> Proposal:
    """Upstream's `computeStatusForExternalMetric`: the values summed, against an `averageValue` per
    replica or a `value` in total."""
    metric, goal = source.get("metric") or {}, source.get("target") or {}
    name = metric.get("name") or ""
    average, value = goal.get("averageValue"), goal.get("value")
    try:
        if average is None and value is None:
            raise replicas.ReplicaCalculationError(
                "invalid external metric source: neither a value target nor an average value target was set"
            )
        metric_selector = _metric_selector(metric)
        try:
            usage = sum(await reader.external_values(target.namespace, name, metric_selector))
        except replicas.ReplicaCalculationError as error:
            raise replicas.ReplicaCalculationError(
                f"unable to get external metric {target.namespace}/{name}/{_go_selector(metric)}: {error}"
            ) from None
        if average is not None:
            count, usage = replicas.per_pod_replicas(
                target.status_replicas, usage, replicas.milli_value(average), target.tolerances
            )
            current = {"averageValue": replicas.milli_quantity(usage)}
        else:
            ratio = usage / replicas.milli_value(value)
            count = replicas.usage_ratio_replicas(target.spec_replicas, ratio, target.tolerances, target.pods)
            current = {"value": replicas.milli_quantity(usage)}
    except (replicas.ReplicaCalculationError, SelectorError) as error:
        raise MetricError("FailedGetExternalMetric", str(error)) from None
    status = {"type": "External", "external": {"metric": _identifier(metric), "current": current}}
    return Proposal(count, f"external metric {name}({_go_selector(metric)})", status)


PROPOSERS = {"Pods": pods_proposal, "Object": object_proposal, "External": external_proposal}
"""The proposal function of each metric source type read from the custom or external metrics API."""
