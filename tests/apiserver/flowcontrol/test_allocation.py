"""Seats per level: nominal shares and borrowing (upstream's concurrency allocation)."""

from __future__ import annotations

from svc.api.brand import SVC
from svc.apiserver.flowcontrol import allocation, bootstrap
from svc.apiserver.flowcontrol.controller import _shares


def _bootstrap_bounds(server_limit: int) -> dict[str, allocation.Bounds]:
    return allocation.bounds(server_limit, [_shares(obj) for obj in bootstrap.priority_levels(SVC)])


def test_nominal_seats_are_the_shares_of_the_server_limit_rounded_up() -> None:
    bounds = _bootstrap_bounds(600)
    # shares: 0 + 5 + 30 + 40 + 10 + 40 + 100 + 20 = 245
    assert bounds["global-default"].nominal == 49  # ceil(600 x 20 / 245)
    assert bounds["workload-low"].nominal == 245
    assert bounds["catch-all"] == allocation.Bounds(13, 13, 613)
    assert bounds["exempt"].nominal == 0


def test_lendable_percent_lowers_the_floor() -> None:
    bounds = _bootstrap_bounds(600)["workload-low"]
    assert bounds.lower == 245 - round(245 * 0.9)


def test_a_busy_level_borrows_what_idle_levels_lend() -> None:
    bounds = {name: bound for name, bound in _bootstrap_bounds(600).items() if name != "exempt"}
    demand = {"global-default": 400.0}
    limits = allocation.current_limits(bounds, demand)
    assert limits["global-default"] > bounds["global-default"].nominal
    assert limits["workload-low"] >= bounds["workload-low"].lower
    assert abs(sum(limits.values()) - sum(bound.nominal for bound in bounds.values())) <= len(bounds)


def test_a_level_that_lends_nothing_keeps_its_seats() -> None:
    bounds = {name: bound for name, bound in _bootstrap_bounds(600).items() if name != "exempt"}
    limits = allocation.current_limits(bounds, {"global-default": 1000.0})
    assert limits["leader-election"] >= bounds["leader-election"].nominal
    assert limits["catch-all"] >= bounds["catch-all"].nominal


def test_the_smoothed_demand_decays_slowly() -> None:
    assert allocation.smooth(100.0, 0) > 97
    assert allocation.smooth(10.0, 50) == 50
