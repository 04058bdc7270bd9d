"""The `apiserver_flowcontrol_*` metrics, with upstream's names, labels and buckets, registered in
the server's registry."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from svc.apiserver.deferred_counts import DeferredCount, FlushOnCollect

WAIT_BUCKETS = (0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30)
_FLOW = ["flow_schema", "priority_level"]
_LEVEL = ["priority_level"]


class FlowControlMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self._flows: dict[tuple[str, str], FlowSeries] = {}
        FlushOnCollect(registry, self._flush)  # ahead of the series it brings up to date
        self.rejected = Counter(
            "apiserver_flowcontrol_rejected_requests",
            "[BETA] Number of requests rejected by API Priority and Fairness subsystem",
            [*_FLOW, "reason"],
            registry=registry,
        )
        self.dispatched = Counter(
            "apiserver_flowcontrol_dispatched_requests",
            "[BETA] Number of requests executed by API Priority and Fairness subsystem",
            _FLOW,
            registry=registry,
        )
        self.inqueue = Gauge(
            "apiserver_flowcontrol_current_inqueue_requests",
            "[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem",
            _FLOW,
            registry=registry,
        )
        self.executing = Gauge(
            "apiserver_flowcontrol_current_executing_requests",
            "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the "
            "API Priority and Fairness subsystem",
            _FLOW,
            registry=registry,
        )
        self.executing_seats = Gauge(
            "apiserver_flowcontrol_current_executing_seats",
            "[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, "
            "any stage otherwise) requests in the API Priority and Fairness subsystem",
            _FLOW,
            registry=registry,
        )
        self.wait = Histogram(
            "apiserver_flowcontrol_request_wait_duration_seconds",
            "[BETA] Length of time a request spent waiting in its queue",
            [*_FLOW, "execute"],
            buckets=WAIT_BUCKETS,
            registry=registry,
        )
        self.nominal = Gauge(
            "apiserver_flowcontrol_nominal_limit_seats",
            "[BETA] Nominal number of execution seats configured for each priority level",
            _LEVEL,
            registry=registry,
        )
        self.current = Gauge(
            "apiserver_flowcontrol_current_limit_seats",
            "[ALPHA] current derived number of execution seats available to each priority level",
            _LEVEL,
            registry=registry,
        )
        self.lower = Gauge(
            "apiserver_flowcontrol_lower_limit_seats",
            "[ALPHA] Configured lower bound on number of execution seats available to each priority level",
            _LEVEL,
            registry=registry,
        )
        self.upper = Gauge(
            "apiserver_flowcontrol_upper_limit_seats",
            "[ALPHA] Configured upper bound on number of execution seats available to each priority level",
            _LEVEL,
            registry=registry,
        )
        self._children: dict[tuple[str, tuple[str, ...]], Any] = {}

    def flow(self, schema: str, level: str) -> FlowSeries:
        """The series of one flow schema at one level, looked up once (labels() costs more than an update)."""
        found = self._flows.get((schema, level))
        if found is None:
            found = self._flows[(schema, level)] = FlowSeries(self, schema, level)
        return found

    def _flush(self) -> None:
        for series in list(self._flows.values()):
            series.flush()

    def child(self, metric: Any, labels: tuple[str, ...]) -> Any:
        key = (metric._name, labels)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*labels)
        return found


class FlowSeries:
    """The labelled children of one (flow schema, priority level) pair.

    What every request moves is kept in plain integers: the three gauges read theirs when `/metrics`
    is scraped, and the scrape adds the dispatched requests and those that ran at once (the zero-wait
    bucket of the wait histogram) to their series (`deferred_counts`)."""

    def __init__(self, metrics: FlowControlMetrics, schema: str, level: str) -> None:
        self._metrics = metrics
        self._labels = (schema, level)
        self.inqueue = 0
        self.executing = 0
        self.executing_seats = 0
        self.at_once = 0
        """Requests dispatched without waiting (the request path adds to it directly)."""
        self._after_wait = 0
        metrics.inqueue.labels(schema, level).set_function(lambda: self.inqueue)
        metrics.executing.labels(schema, level).set_function(lambda: self.executing)
        metrics.executing_seats.labels(schema, level).set_function(lambda: self.executing_seats)
        self.waited_then_ran = metrics.wait.labels(schema, level, "true")
        self.waited_then_refused = metrics.wait.labels(schema, level, "false")
        self._dispatched = DeferredCount(metrics.dispatched.labels(schema, level))
        # What `observe(0)` adds, many at once: the first bucket (le=0) counts them, the sum stays.
        # prometheus-client has no public call for that; its buckets are kept uncumulated.
        self._ran_at_once = DeferredCount(self.waited_then_ran._buckets[0])

    def ran(self, waited: float) -> None:
        """A request was dispatched after `waited` seconds in its queue (0 when it ran at once)."""
        if waited:
            self._after_wait += 1
            self.waited_then_ran.observe(waited)
        else:
            self.at_once += 1

    def flush(self) -> None:
        """Bring the dispatched counter and the zero-wait bucket up to the integers (at scrape time)."""
        self._dispatched.value = self.at_once + self._after_wait
        self._ran_at_once.value = self.at_once
        self._dispatched.flush()
        self._ran_at_once.flush()

    def rejected(self, reason: str) -> Any:
        return self._metrics.child(self._metrics.rejected, (*self._labels, reason))
