"""The limits used when priority and fairness is off (upstream's `WithMaxInFlightLimit`).

Two counters: read-only requests against `--max-requests-inflight`, mutating ones against
`--max-mutating-requests-inflight`; 0 turns that limit off. Long-running requests (watches, exec,
proxy...) are not counted. A request over its limit is refused at once with 429 and
`Retry-After: 1`, except for `system:masters`, which is always served.
"""

from __future__ import annotations

from dataclasses import dataclass

MUTATING_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})


@dataclass
class MaxInFlight:
    read_only_limit: int
    mutating_limit: int
    read_only: int = 0
    mutating: int = 0

    def try_acquire(self, mutating: bool) -> bool:
        if mutating:
            if self.mutating_limit and self.mutating >= self.mutating_limit:
                return False
            self.mutating += 1
        else:
            if self.read_only_limit and self.read_only >= self.read_only_limit:
                return False
            self.read_only += 1
        return True

    def release(self, mutating: bool) -> None:
        if mutating:
            self.mutating -= 1
        else:
            self.read_only -= 1
