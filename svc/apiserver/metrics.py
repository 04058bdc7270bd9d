"""The API server's Prometheus metrics, with upstream's names, labels and buckets.

Each server has a registry of its own (several servers run in one test process). Request metrics are
recorded by the `measure` filter; object counts are read from the watch caches when `/metrics` is
scraped, as upstream reads them from storage on a poll. Process metrics come from prometheus-client's
own collectors. The labelled children of hot metrics are remembered per label set, because looking
them up through `labels()` costs more than the update itself. Each concern keeps its families in a
module of its own (admission, audit, authn, authz, storage, watch) registered here.

Help texts carry upstream's stability prefix (`[STABLE]`, `[BETA]`, `[ALPHA]`). `/metrics` renders
through `Exposition`, which applies the metrics flags and hides deprecated metrics (`DEPRECATED`);
counters upstream names without `_total` (`EXACT_COUNTERS`) get their names back after rendering.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from svc.apiserver.admission.metrics import AdmissionMetrics, PolicyMetrics
from svc.apiserver.audit.metrics import AuditMetrics
from svc.apiserver.authn.metrics import JWTMetrics
from svc.apiserver.deferred_counts import Deferred
from svc.apiserver.metrics_exposition import Exposition
from svc.apiserver.metrics_options import MetricsOptions
from svc.apiserver.metrics_slis import HealthcheckSlis
from svc.apiserver.metrics_watch import WatchEventMetrics
from svc.apiserver.storage_metrics import StorageMetrics

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
disable_created_metrics()  # upstream's Go client writes no `_created` series
# Upstream's buckets of apiserver_request_duration_seconds.
DURATION_BUCKETS = (
    0.005,
    0.025,
    0.05,
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    1.25,
    1.5,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    15,
    20,
    30,
    45,
    60,
)
_REQUEST_LABELS = ("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component")
Labels = tuple[str, ...]


class _ObjectCounts:
    """`apiserver_resource_objects` (by group and resource) and the deprecated `apiserver_storage_objects`
    (by `resource.group`), from the sizes of the watch caches at scrape time."""

    def __init__(self, counts: Callable[[], dict[tuple[str, str], int]]) -> None:
        self._counts = counts

    def collect(self) -> Iterator[GaugeMetricFamily]:
        help_text = (
            "Number of stored objects at the time of last check split by kind. In case of a fetching error, the "
            "value will be -1."
        )
        current = GaugeMetricFamily("apiserver_resource_objects", f"[ALPHA] {help_text}", labels=["group", "resource"])
        legacy = GaugeMetricFamily(
            "apiserver_storage_objects",
            f"[STABLE] [DEPRECATED, consider using apiserver_resource_objects instead] {help_text}",
            labels=["resource"],
        )
        for (group, resource), count in sorted(self._counts().items()):
            current.add_metric([group, resource], count)
            legacy.add_metric([f"{resource}.{group}" if group else resource], count)
        yield current
        yield legacy


AUTHENTICATION_BUCKETS = tuple(0.001 * 2**power for power in range(15))
_KNOWN_USERS = frozenset({"admin", "client", "kube_proxy", "kubelet", "system:serviceaccount:kube-system:default"})


def compress_username(name: str) -> str:
    """Upstream's label value for a user: a few known identities by name, emails as one, the rest `other`."""
    if name in _KNOWN_USERS:
        return name
    return "email_id" if "@" in name else "other"


EXACT_COUNTERS = (
    "authentication_attempts",
    "authenticated_user_requests",
    "apiserver_admission_webhook_rejection_count",
    "apiserver_admission_webhook_fail_open_count",
)
"""Counters whose upstream names lack the `_total` that prometheus-client appends to every counter."""


class AuthenticationMetrics:
    """`authentication_attempts`, `authentication_duration_seconds` and `authenticated_user_requests`,
    recorded by the authentication filter for every request, as upstream's."""

    def __init__(self, registry: CollectorRegistry) -> None:
        deferred = Deferred(registry)
        self.attempts = Counter(
            "authentication_attempts", "[ALPHA] Counter of authenticated attempts.", ["result"], registry=registry
        )
        self.users = Counter(
            "authenticated_user_requests",
            "[ALPHA] Counter of authenticated requests broken out by username.",
            ["username"],
            registry=registry,
        )
        self.duration = Histogram(
            "authentication_duration_seconds",
            "[ALPHA] Authentication duration in seconds broken out by result.",
            ["result"],
            buckets=AUTHENTICATION_BUCKETS,
            registry=registry,
        )
        results = ("success", "failure", "error")
        self._attempts = {result: deferred.count(self.attempts.labels(result)) for result in results}
        self._durations = {result: deferred.histogram(self.duration.labels(result)) for result in results}

    def record(self, result: str, seconds: float, user: str | None) -> None:
        self._attempts[result].inc()
        self._durations[result].observe(seconds)
        if user is not None:
            self.users.labels(compress_username(user)).inc()


CURRENT_MINOR = 36
DEPRECATED: dict[str, int] = {"apiserver_storage_objects": 34}
"""Metrics of ours upstream marks deprecated, with the 1.x minor version that did."""
# Upstream's buckets of apiserver_response_sizes: ExponentialBuckets(1000, 10, 7), 1KB to 1GB.
RESPONSE_SIZE_BUCKETS = tuple(1000.0 * 10**power for power in range(7))


class Metrics:
    def __init__(
        self, object_counts: Callable[[], dict[tuple[str, str], int]], options: MetricsOptions | None = None
    ) -> None:
        self.registry = registry = CollectorRegistry()
        self.deferred = Deferred(registry)
        self.options = options = options or MetricsOptions()
        self._exposition = Exposition(
            registry, options, current_minor=CURRENT_MINOR, deprecated=DEPRECATED, exact=frozenset(EXACT_COUNTERS)
        )
        self.slis = HealthcheckSlis()
        self.requests = Counter(
            "apiserver_request",
            "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, "
            "scope, component, and HTTP response code.",
            [*_REQUEST_LABELS, "code"],
            registry=registry,
        )
        self.durations = Histogram(
            "apiserver_request_duration_seconds",
            "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
            "subresource, scope and component.",
            _REQUEST_LABELS,
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.response_sizes = Histogram(
            "apiserver_response_sizes",
            "[STABLE] Response size distribution in bytes for each group, version, verb, resource, subresource, "
            "scope and component.",
            ["verb", "group", "version", "resource", "subresource", "scope", "component"],
            buckets=RESPONSE_SIZE_BUCKETS,
            registry=registry,
        )
        self.inflight = Gauge(
            "apiserver_current_inflight_requests",
            "[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in "
            "last second.",
            ["request_kind"],
            registry=registry,
        )
        self.longrunning = Gauge(
            "apiserver_longrunning_requests",
            "[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, "
            "resource, scope and component. Not all requests are tracked this way.",
            ["verb", "group", "version", "resource", "subresource", "scope", "component"],
            registry=registry,
        )
        self.authentication = AuthenticationMetrics(registry)
        self.admission = AdmissionMetrics(registry)
        self.policies = PolicyMetrics(registry)
        self.jwt = JWTMetrics(registry)
        self.audit = AuditMetrics(registry)
        self.storage = StorageMetrics(registry, DURATION_BUCKETS)  # upstream: the request latency buckets
        self.storage_size = Gauge(
            "apiserver_storage_size_bytes",
            "[STABLE] Size of the storage database file physically allocated in bytes.",
            ["storage_cluster_id"],
            registry=registry,
        )
        registry.register(_ObjectCounts(object_counts))
        self.watch_events = WatchEventMetrics()
        registry.register(self.watch_events)
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        GCCollector(registry=registry)
        self._children: dict[tuple[str, Labels], Any] = {}

    def child(self, metric: Any, labels: Labels) -> Any:
        """The series of `metric` with these label values; a counter's or histogram's is deferred
        (`deferred_counts`), as these are moved on every request."""
        key = (metric._name, labels)
        found = self._children.get(key)
        if found is None:
            found = metric.labels(*labels)
            if isinstance(metric, Counter):
                found = self.deferred.count(found)
            elif isinstance(metric, Histogram):
                found = self.deferred.histogram(found)
            self._children[key] = found
        return found

    def render(self) -> bytes:
        text = generate_latest(self._exposition)
        for name in EXACT_COUNTERS:
            text = text.replace(f"{name}_total".encode(), name.encode())
        return text
