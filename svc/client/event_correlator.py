"""client-go's `EventCorrelator` (`tools/record/events_cache.go`): what a recorder does with an event
before writing it, so a controller stuck on a bad object cannot flood the API server.

Three steps, in upstream's order and with its defaults:
- aggregation: events that differ only in their message (same source, object, type and reason) are
  counted by distinct message; from the 10th distinct message within 10 minutes of the previous one,
  the event becomes one shared event whose message is prefixed `(combined from similar events): `;
- counting: an event seen before (the same key, message included) is not created again but patched
  (`count`, `lastTimestamp`, `message`) on the object first created for it;
- spam filter: each source and object has a token bucket of 25 events refilled at one per 5 minutes;
  an event finding it empty is dropped. The filter runs last, so a dropped repeat still counts.
Every cache holds the 4096 most recently used keys.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from svc.client.clock import Clock

Obj = dict[str, Any]
K = TypeVar("K")
V = TypeVar("V")
CACHE_SIZE = 4096
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL = 600.0
SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0
COMBINED = "(combined from similar events): "


class LRU(Generic[K, V]):
    """groupcache's `lru.Cache`: a get refreshes the entry, an add beyond the size evicts the oldest."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        if key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def add(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self.size:
            self._items.popitem(last=False)


def _source_object(event: Obj) -> tuple[str, ...]:
    source, ref = event.get("source") or {}, event.get("involvedObject") or {}
    return (
        source.get("component", ""),
        source.get("host", ""),
        ref.get("kind", ""),
        ref.get("namespace", ""),
        ref.get("name", ""),
        ref.get("uid", ""),
        ref.get("apiVersion", ""),
    )


def event_key(event: Obj) -> tuple[str, ...]:
    """upstream's `getEventKey`: source, object (with field path), type, reason and message."""
    field_path = (event.get("involvedObject") or {}).get("fieldPath", "")
    return (
        *_source_object(event),
        field_path,
        event.get("type", ""),
        event.get("reason", ""),
        event.get("message", ""),
    )


def aggregate_key(event: Obj) -> tuple[str, ...]:
    """upstream's `EventAggregatorByReasonFunc`: everything but the message."""
    return (*_source_object(event), event.get("type", ""), event.get("reason", ""))


@dataclass
class _Aggregate:
    messages: set[str] = field(default_factory=set)
    last: float = float("-inf")


@dataclass
class _Observation:
    count: int
    first_timestamp: str
    name: str


@dataclass
class _Bucket:
    tokens: float
    last: float


@dataclass
class Correlated:
    """The event to write; with `patch`, it updates the object named in it rather than creating one."""

    event: Obj
    patch: Obj | None = None


class EventCorrelator:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._aggregates: LRU[tuple[str, ...], _Aggregate] = LRU(CACHE_SIZE)
        self._observed: LRU[tuple[str, ...], _Observation] = LRU(CACHE_SIZE)
        self._buckets: LRU[tuple[str, ...], _Bucket] = LRU(CACHE_SIZE)

    def correlate(self, event: Obj, *, stamp: str, name: str) -> Correlated | None:
        """What to write for `event` (stamped `stamp`; `name` for a combined event), or None to drop it."""
        aggregated, key = self._aggregate(event, stamp, name)
        observed, patch = self._observe(aggregated, key, stamp)
        if not self._accept(observed):
            return None
        return Correlated(observed, patch)

    def update_state(self, written: Obj) -> None:
        """Remember the event as the server wrote it (its name and count), for the next repeat."""
        observation = _Observation(
            written.get("count", 1), written.get("firstTimestamp", ""), written["metadata"]["name"]
        )
        self._observed.add(event_key(written), observation)

    def _aggregate(self, event: Obj, stamp: str, name: str) -> tuple[Obj, tuple[str, ...]]:
        now = self.clock.now()
        key = aggregate_key(event)
        record = self._aggregates.get(key)
        if record is None or now - record.last > AGGREGATE_INTERVAL:
            record = _Aggregate()
        record.messages.add(event.get("message", ""))
        record.last = now
        self._aggregates.add(key, record)
        if len(record.messages) < AGGREGATE_MAX_EVENTS:
            return event, event_key(event)
        record.messages.pop()
        combined = {
            **{k: v for k, v in event.items() if k not in ("reportingComponent", "reportingInstance")},
            "metadata": {"name": name, "namespace": event["metadata"]["namespace"]},
            "message": COMBINED + event.get("message", ""),
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
        }
        return combined, key

    def _observe(self, event: Obj, key: tuple[str, ...], stamp: str) -> tuple[Obj, Obj | None]:
        last = self._observed.get(key)
        patch = None
        if last is not None and last.count > 0:
            event = {
                **event,
                "metadata": {**event["metadata"], "name": last.name},
                "firstTimestamp": last.first_timestamp,
                "count": last.count + 1,
            }
            patch = {"count": event["count"], "lastTimestamp": stamp, "message": event.get("message", "")}
        self._observed.add(
            key, _Observation(event.get("count", 1), event.get("firstTimestamp", ""), event["metadata"]["name"])
        )
        return event, patch

    def _accept(self, event: Obj) -> bool:
        """The source+object token bucket (client-go's passive token bucket: full at first)."""
        now = self.clock.now()
        key = _source_object(event)
        bucket = self._buckets.get(key) or _Bucket(tokens=float(SPAM_BURST), last=now)
        bucket.tokens = min(float(SPAM_BURST), bucket.tokens + (now - bucket.last) * SPAM_QPS)
        bucket.last = now
        accepted = bucket.tokens >= 1.0
        if accepted:
            bucket.tokens -= 1.0
        self._buckets.add(key, bucket)
        return accepted
