"""EventRateLimit: token buckets on Event writes, per server, namespace, user or event source and
object, as configured (`eventratelimit.admission.k8s.io/v1alpha1` Configuration: `limits` of `type`,
`qps`, `burst`, `cacheSize`); an empty bucket answers 429."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.registry.admission import Attributes, Operation

Obj = dict[str, Any]
TYPES = ("Server", "Namespace", "User", "SourceAndObject")
DEFAULT_CACHE_SIZE = 4096


@dataclass
class Bucket:
    qps: float
    burst: int
    tokens: float = 0.0
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    def take(self, now: float) -> bool:
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.qps)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def _key(kind: str, attributes: Attributes) -> str:
    if kind == "Namespace":
        return attributes.namespace
    if kind == "User":
        return attributes.user.name
    if kind == "SourceAndObject":
        event = attributes.object or {}
        source = event.get("source") or {}
        involved = event.get("involvedObject") or {}
        parts = [source.get("component", ""), source.get("host", "")]
        parts += [str(involved.get(f, "")) for f in ("kind", "namespace", "name", "uid", "apiVersion")]
        return "".join(parts)
    return ""


@dataclass
class Limit:
    kind: str
    qps: float
    burst: int
    cache_size: int
    buckets: OrderedDict[str, Bucket] = field(default_factory=OrderedDict)

    def accept(self, key: str, now: float) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = Bucket(self.qps, self.burst)
            if len(self.buckets) > self.cache_size:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        return bucket.take(now)


def parse_limits(configuration: Any) -> list[Limit]:
    """Raises ValueError on a configuration upstream would reject."""
    limits = (configuration or {}).get("limits") or []
    if not limits:
        raise ValueError("EventRateLimit: limits: Required value: must specify at least one limit")
    parsed = []
    for index, entry in enumerate(limits):
        kind = entry.get("type")
        if kind not in TYPES:
            raise ValueError(f'EventRateLimit: limits[{index}].type: Unsupported value: "{kind}"')
        qps, burst = entry.get("qps", 0), entry.get("burst", 0)
        if not isinstance(qps, int | float) or qps <= 0 or not isinstance(burst, int) or burst <= 0:
            raise ValueError(f"EventRateLimit: limits[{index}]: qps and burst must be positive")
        cache_size = 1 if kind == "Server" else int(entry.get("cacheSize") or DEFAULT_CACHE_SIZE)
        parsed.append(Limit(kind, float(qps), burst, cache_size))
    return parsed


class EventRateLimit:
    resources = frozenset({("", "events")})

    def __init__(self, limits: list[Limit], clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._clock = clock

    async def validate(self, attributes: Attributes) -> None:
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE) or not targets(attributes, "", "events"):
            return
        now = self._clock()
        for limit in self._limits:
            key = _key(limit.kind, attributes)
            if not limit.accept(key, now):
                raise status.StatusError(
                    429, "TooManyRequests", f"Too many requests: limit reached on type {limit.kind} for key {key}"
                )


def build(context: PluginContext) -> EventRateLimit:
    return EventRateLimit(parse_limits(context.configuration))
