"""Expectations: what a controller has asked for and not yet seen through its informers.

Upstream's `ControllerExpectations`: after creating n pods a controller must not count again until
it has seen those n creations in its cache, or it would create them twice. Creations are counted;
deletions are tracked by pod key, so seeing the same deletion twice (the pod marked deleted, then
gone) lowers the expectation once. Expectations older than five minutes are treated as met, so a
lost watch event cannot stall a controller forever.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from svc.client.clock import Clock

EXPECTATIONS_TIMEOUT = 300.0


@dataclass
class _Pending:
    adds: int
    deletes: set[str] = field(default_factory=set)
    since: float = 0.0


class Expectations:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._pending: dict[str, _Pending] = {}

    def expect(self, key: str, *, adds: int = 0, deletes: set[str] | None = None) -> None:
        self._pending[key] = _Pending(adds, set(deletes or ()), self.clock.now())

    def creation_observed(self, key: str) -> None:
        pending = self._pending.get(key)
        if pending is not None:
            pending.adds -= 1

    def creations_failed(self, key: str, count: int) -> None:
        """Creations that were never made are not waited for."""
        pending = self._pending.get(key)
        if pending is not None:
            pending.adds -= count

    def deletion_observed(self, key: str, pod_key: str) -> None:
        pending = self._pending.get(key)
        if pending is not None:
            pending.deletes.discard(pod_key)

    def satisfied(self, key: str) -> bool:
        pending = self._pending.get(key)
        if pending is None:
            return True
        if pending.adds <= 0 and not pending.deletes:
            return True
        return self.clock.now() - pending.since > EXPECTATIONS_TIMEOUT

    def forget(self, key: str) -> None:
        self._pending.pop(key, None)
