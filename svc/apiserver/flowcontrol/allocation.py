"""Seats per priority level: nominal shares of the server's limit, and the current limits after
lending and borrowing (upstream's `apf_controller` concurrency allocation).

The server limit (`--max-requests-inflight` + `--max-mutating-requests-inflight`) is divided in
proportion to `nominalConcurrencyShares`: NominalCL = ceil(ServerCL x shares / sum of shares). A level
may lend `lendablePercent` of its seats and borrow up to `borrowingLimitPercent` (unbounded when
unset), so its current limit lies in [NominalCL - LendableCL, NominalCL + BorrowingCL].

Periodically each level's seat demand (the peak of seats running plus waiting over the period,
smoothed so it decays slowly) becomes its target, and one fair proportion p is found so that the
sum over levels of clamp(p x target, lower, upper) equals the sum of the nominal limits. Simplified
from upstream: the demand is a smoothed peak, not upstream's mean-plus-deviation statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SMOOTHING = 0.977


@dataclass(frozen=True)
class Shares:
    name: str
    exempt: bool
    shares: int
    lendable_percent: int
    borrowing_percent: int | None


@dataclass(frozen=True)
class Bounds:
    nominal: int
    lower: int
    upper: int


def bounds(server_limit: int, levels: list[Shares]) -> dict[str, Bounds]:
    total = sum(level.shares for level in levels) or 1
    result = {}
    for level in levels:
        nominal = math.ceil(server_limit * level.shares / total)
        lendable = round(nominal * level.lendable_percent / 100)
        borrowing = server_limit if level.borrowing_percent is None else round(nominal * level.borrowing_percent / 100)
        result[level.name] = Bounds(nominal, nominal - lendable, nominal + borrowing)
    return result


def smooth(previous: float, peak: int) -> float:
    return max(float(peak), SMOOTHING * previous + (1 - SMOOTHING) * peak)


def _allocated(proportion: float, targets: dict[str, float], limits: dict[str, Bounds]) -> dict[str, float]:
    return {
        name: min(float(limits[name].upper), max(float(limits[name].lower), proportion * target))
        for name, target in targets.items()
    }


def current_limits(limits: dict[str, Bounds], demand: dict[str, float]) -> dict[str, int]:
    """Current limits of the limited levels in `limits`, their sum the sum of their nominal limits."""
    required = sum(bound.nominal for bound in limits.values())
    targets = {name: max(float(bound.lower), demand.get(name, 0.0)) for name, bound in limits.items()}
    if sum(bound.upper for bound in limits.values()) <= required:
        return {name: bound.upper for name, bound in limits.items()}
    if sum(bound.lower for bound in limits.values()) >= required:
        return {name: bound.lower for name, bound in limits.items()}
    low, high = 0.0, 1.0
    while sum(_allocated(high, targets, limits).values()) < required and high < 1e12:
        high *= 2
    for _ in range(60):
        middle = (low + high) / 2
        if sum(_allocated(middle, targets, limits).values()) < required:
            low = middle
        else:
            high = middle
    return {name: max(1, round(value)) for name, value in _allocated(high, targets, limits).items()}
