"""Counts and histogram observations a request path keeps as plain numbers and a scrape adds to their
prometheus series.

A prometheus-client update takes a lock (a fraction of a microsecond, several times per request on
the hottest paths; a histogram observation takes two and walks its buckets); an integer increment
costs a few nanoseconds. The registry runs `FlushOnCollect` before the series it brings up to date
(it is registered ahead of them), so a scrape reads exact values. The request path only adds to
its numbers; the flush alone moves the watermarks, so a flush on another thread loses nothing."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable
from typing import Protocol

from prometheus_client import CollectorRegistry
from prometheus_client.metrics_core import Metric


class _Incrementable(Protocol):
    def inc(self, amount: float = 1) -> None: ...


class DeferredCount:
    __slots__ = ("_flushed", "_target", "value")

    def __init__(self, target: _Incrementable) -> None:
        self.value = 0
        self._flushed = 0
        self._target = target

    def inc(self, amount: int = 1) -> None:
        self.value += amount

    def flush(self) -> None:
        value = self.value
        if value > self._flushed:
            self._target.inc(value - self._flushed)
            self._flushed = value


class DeferredHistogram:
    """One labelled child of a prometheus-client `Histogram`, observed as plain numbers.

    The flush adds to the child's own per-bucket values and sum (`_upper_bounds`, `_buckets`, `_sum`:
    prometheus-client's private fields; it has no public call that adds many observations at once).
    """

    __slots__ = ("_bounds", "_counts", "_flushed", "_flushed_sum", "_target", "sum")

    def __init__(self, target: object) -> None:
        self._target = target
        self._bounds: list[float] = list(target._upper_bounds)  # type: ignore[attr-defined]
        self._counts = [0] * len(self._bounds)
        self._flushed = [0] * len(self._bounds)
        self.sum = 0.0
        self._flushed_sum = 0.0

    def observe(self, amount: float) -> None:
        """As prometheus-client's: the first bucket whose upper bound is at least `amount`."""
        self._counts[bisect_left(self._bounds, amount)] += 1
        self.sum += amount

    def flush(self) -> None:
        buckets = self._target._buckets  # type: ignore[attr-defined]
        for index, count in enumerate(self._counts):
            if count > self._flushed[index]:
                buckets[index].inc(count - self._flushed[index])
                self._flushed[index] = count
        total = self.sum
        if total != self._flushed_sum:
            self._target._sum.inc(total - self._flushed_sum)  # type: ignore[attr-defined]
            self._flushed_sum = total


class Deferred:
    """The deferred children of one metrics holder, flushed before each collection of its registry.

    Create it before the holder's series, so its flush is registered ahead of them."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._children: list[DeferredCount | DeferredHistogram] = []
        FlushOnCollect(registry, self.flush)

    def count(self, child: _Incrementable) -> DeferredCount:
        deferred = DeferredCount(child)
        self._children.append(deferred)
        return deferred

    def histogram(self, child: object) -> DeferredHistogram:
        deferred = DeferredHistogram(child)
        self._children.append(deferred)
        return deferred

    def flush(self) -> None:
        for child in list(self._children):
            child.flush()


class FlushOnCollect:
    """A collector that yields nothing and runs `flush` (one at a time) whenever the registry is collected."""

    def __init__(self, registry: CollectorRegistry, flush: Callable[[], None]) -> None:
        self._flush = flush
        self._lock = threading.Lock()
        registry.register(self)

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> list[Metric]:
        with self._lock:
            self._flush()
        return []
