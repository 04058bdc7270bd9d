"""client-go's process-wide metrics as the controller manager exposes them: work queues, REST
requests and leader election.

Upstream registers one provider per process and every named queue or client reports to it; here a
component that serves metrics calls `install()` and the queues, clients and electors made afterwards
report to that registry (nothing is recorded while none is installed, as in a server or a test that
runs controllers in process). Queue depth, latency, work duration and retries follow client-go's
queue hooks; the in-progress gauges (`unfinished_work_seconds`, `longest_running_processor_seconds`)
are computed when scraped instead of every 500 ms.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily

# client-go: ExponentialBuckets(10e-9, 10, 12), 10ns to about 3 hours.
QUEUE_BUCKETS = tuple(10e-9 * 10**power for power in range(12))
# client-go's rest_client_request_duration_seconds buckets.
REQUEST_BUCKETS = (0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)


class QueueMetrics:
    """The hooks of one named queue (client-go's `queueMetrics`)."""

    def __init__(self, provider: ClientMetrics, name: str, now: Callable[[], float]) -> None:
        self.name = name
        self._now = now
        self._adds = provider.adds.labels(name)
        self._depth = provider.depth.labels(name)
        self._latency = provider.queue_duration.labels(name)
        self._work = provider.work_duration.labels(name)
        self._retries = provider.retries.labels(name)
        self._added: dict[Hashable, float] = {}
        self.processing: dict[Hashable, float] = {}

    def add(self, item: Hashable) -> None:
        self._adds.inc()
        self._depth.inc()
        self._added.setdefault(item, self._now())

    def get(self, item: Hashable) -> None:
        now = self._now()
        self._depth.dec()
        self.processing[item] = now
        added = self._added.pop(item, None)
        if added is not None:
            self._latency.observe(now - added)

    def done(self, item: Hashable) -> None:
        started = self.processing.pop(item, None)
        if started is not None:
            self._work.observe(self._now() - started)

    def retry(self) -> None:
        self._retries.inc()

    def in_progress(self) -> tuple[float, float]:
        """Seconds of unfinished work, and of the longest running processor."""
        now = self._now()
        ages = [now - started for started in self.processing.values()]
        return sum(ages), max(ages, default=0.0)


class ClientMetrics:
    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.depth = Gauge("workqueue_depth", "[ALPHA] Current depth of workqueue", ["name"], registry=registry)
        self.adds = Counter(
            "workqueue_adds", "[ALPHA] Total number of adds handled by workqueue", ["name"], registry=registry
        )
        self.queue_duration = Histogram(
            "workqueue_queue_duration_seconds",
            "[ALPHA] How long in seconds an item stays in workqueue before being requested.",
            ["name"],
            buckets=QUEUE_BUCKETS,
            registry=registry,
        )
        self.work_duration = Histogram(
            "workqueue_work_duration_seconds",
            "[ALPHA] How long in seconds processing an item from workqueue takes.",
            ["name"],
            buckets=QUEUE_BUCKETS,
            registry=registry,
        )
        self.retries = Counter(
            "workqueue_retries", "[ALPHA] Total number of retries handled by workqueue", ["name"], registry=registry
        )
        self.requests = Counter(
            "rest_client_requests",
            "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.",
            ["code", "method", "host"],
            registry=registry,
        )
        self.request_duration = Histogram(
            "rest_client_request_duration_seconds",
            "[ALPHA] Request latency in seconds. Broken down by verb, and host.",
            ["verb", "host"],
            buckets=REQUEST_BUCKETS,
            registry=registry,
        )
        self.leader = Gauge(
            "leader_election_master_status",
            "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
            "indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
            ["name"],
            registry=registry,
        )
        self._queues: list[QueueMetrics] = []
        registry.register(_InProgress(self._queues))

    def queue(self, name: str, now: Callable[[], float]) -> QueueMetrics:
        metrics = QueueMetrics(self, name, now)
        self._queues.append(metrics)
        return metrics

    def request(self, method: str, host: str, code: str, seconds: float) -> None:
        """One REST call; `code` is the HTTP status, `<error>` when none came back."""
        self.requests.labels(code, method, host).inc()
        self.request_duration.labels(method, host).observe(seconds)


class _InProgress:
    def __init__(self, queues: list[QueueMetrics]) -> None:
        self._queues = queues

    def collect(self) -> Iterator[GaugeMetricFamily]:
        unfinished = GaugeMetricFamily(
            "workqueue_unfinished_work_seconds",
            "[ALPHA] How many seconds of work has done that is in progress and hasn't been observed by "
            "work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by "
            "observing the rate at which this increases.",
            labels=["name"],
        )
        longest = GaugeMetricFamily(
            "workqueue_longest_running_processor_seconds",
            "[ALPHA] How many seconds has the longest running processor for workqueue been running.",
            labels=["name"],
        )
        totals: dict[str, tuple[float, float]] = {}
        for queue in self._queues:
            seconds, oldest = queue.in_progress()
            total, most = totals.get(queue.name, (0.0, 0.0))
            totals[queue.name] = (total + seconds, max(most, oldest))
        for name, (total, most) in sorted(totals.items()):
            unfinished.add_metric([name], total)
            longest.add_metric([name], most)
        yield unfinished
        yield longest


_installed: ClientMetrics | None = None


def install(metrics: ClientMetrics | None) -> None:
    """Make `metrics` the process's provider (None: record nothing)."""
    global _installed
    _installed = metrics


def installed() -> ClientMetrics | None:
    return _installed
