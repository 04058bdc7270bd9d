"""`apiserver_watch_events_total` and `apiserver_watch_events_sizes`, by group, version and resource.

Watch fan-out is the hottest loop of the server: one batch of events goes to every watcher of a
resource, framed once and shared. Counting an event per watcher through prometheus-client's
labelled children would cost more than the write itself, so a watch keeps one `WatchSeries` (a
count, a byte sum and bucket counts, plain attributes) and adds each batch it writes in one call;
the families are built from the series at scrape time. A batch's bytes are spread evenly over its
events for the size buckets (upstream observes each event's own frame size).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily

# Upstream: ExponentialBuckets(1024, 2.0, 8), 1K to 128K.
SIZE_BUCKETS = tuple(1024.0 * 2**power for power in range(8))


class WatchSeries:
    __slots__ = ("buckets", "bytes", "events")

    def __init__(self) -> None:
        self.events = 0
        self.bytes = 0
        self.buckets = [0] * (len(SIZE_BUCKETS) + 1)

    def add(self, events: int, size: int) -> None:
        """`events` events written in `size` bytes."""
        if events <= 0:
            return
        self.events += events
        self.bytes += size
        self.buckets[bisect_left(SIZE_BUCKETS, size / events)] += events


class WatchEventMetrics:
    def __init__(self) -> None:
        self._series: dict[tuple[str, str, str], WatchSeries] = {}

    def series(self, group: str, version: str, resource: str) -> WatchSeries:
        key = (group, version, resource)
        found = self._series.get(key)
        if found is None:
            found = self._series[key] = WatchSeries()
        return found

    def collect(self) -> Iterator[CounterMetricFamily | HistogramMetricFamily]:
        labels = ["group", "version", "resource"]
        events = CounterMetricFamily(
            "apiserver_watch_events", "[ALPHA] Number of events sent in watch clients", labels=labels
        )
        sizes = HistogramMetricFamily(
            "apiserver_watch_events_sizes", "[ALPHA] Watch event size distribution in bytes", labels=labels
        )
        for key, series in sorted(self._series.items()):
            events.add_metric(list(key), series.events)
            cumulative = 0
            buckets = []
            for bound, count in zip((*SIZE_BUCKETS, float("inf")), series.buckets, strict=True):
                cumulative += count
                buckets.append((_bound(bound), cumulative))
            sizes.add_metric(list(key), buckets, series.bytes)
        yield events
        yield sizes


def _bound(value: float) -> str:
    return "+Inf" if value == float("inf") else repr(value)
