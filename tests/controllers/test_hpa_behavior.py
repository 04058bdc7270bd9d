"""Stabilization and scaling policies: how a recommendation becomes the applied replica count."""

from __future__ import annotations

from svc.controllers.hpa_behavior import (
    DOWN_LIMIT,
    DOWN_STABILIZED,
    READY,
    TOO_FEW,
    TOO_MANY,
    UP_LIMIT,
    UP_STABILIZED,
    WITHIN_RANGE,
    History,
    normalize,
    normalize_with_behavior,
    store_scale_event,
)

DEFAULT_UP = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
DEFAULT_DOWN = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


def with_behavior(history: History, current: int, desired: int, now: float, *, up=DEFAULT_UP, down=DEFAULT_DOWN, **kw):
    limits = {"min_replicas": 1, "max_replicas": 100, **kw}
    return normalize_with_behavior(
        history, {"scaleUp": up, "scaleDown": down}, current=current, desired=desired,
        default_down_window=300.0, now=now, **limits,
    )  # fmt: skip


def test_without_behavior_a_scale_down_waits_for_the_window() -> None:
    history = History(recommendations=[(5, 0.0)])
    outcome = normalize(history, current=5, desired=2, min_replicas=1, max_replicas=10, window=300.0, now=60.0)
    assert (outcome.replicas, outcome.able_to_scale) == (5, DOWN_STABILIZED)
    later = normalize(history, current=5, desired=2, min_replicas=1, max_replicas=10, window=300.0, now=400.0)
    assert (later.replicas, later.able_to_scale) == (2, READY)


def test_without_behavior_a_scale_up_is_limited_to_double_or_four() -> None:
    outcome = normalize(History(), current=3, desired=20, min_replicas=1, max_replicas=50, window=0.0, now=1.0)
    assert (outcome.replicas, outcome.limited, outcome.limit) == (6, True, UP_LIMIT)


def test_without_behavior_the_maximum_and_minimum_bound_the_count() -> None:
    high = normalize(History(), current=8, desired=40, min_replicas=1, max_replicas=10, window=0.0, now=1.0)
    assert (high.replicas, high.limit) == (10, TOO_MANY)
    low = normalize(History(), current=3, desired=1, min_replicas=2, max_replicas=10, window=0.0, now=1.0)
    assert (low.replicas, low.limit) == (2, TOO_FEW)
    ok = normalize(History(), current=3, desired=4, min_replicas=2, max_replicas=10, window=0.0, now=1.0)
    assert (ok.replicas, ok.limited, ok.limit) == (4, False, WITHIN_RANGE)


def test_the_scale_up_policies_pick_the_larger_step_by_default() -> None:
    # from 10: Pods 4 -> 14, Percent 100 -> 20; Max picks 20
    assert with_behavior(History(), 10, 50, 0.0).replicas == 20
    # from 2: Pods 4 -> 6, Percent 100 -> 4; Max picks 6
    outcome = with_behavior(History(), 2, 50, 0.0)
    assert (outcome.replicas, outcome.limited, outcome.limit) == (6, True, UP_LIMIT)


def test_select_policy_min_picks_the_smaller_step() -> None:
    up = {**DEFAULT_UP, "selectPolicy": "Min"}
    assert with_behavior(History(), 10, 50, 0.0, up=up).replicas == 14


def test_disabled_scale_down_keeps_the_count() -> None:
    down = {**DEFAULT_DOWN, "selectPolicy": "Disabled", "stabilizationWindowSeconds": 0}
    assert with_behavior(History(), 10, 2, 0.0, down=down).replicas == 10


def test_scale_events_within_a_period_count_against_its_limit() -> None:
    history = History()
    down = {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [{"type": "Pods", "value": 2, "periodSeconds": 60}],
    }
    first = with_behavior(history, 10, 1, 0.0, down=down)
    assert (first.replicas, first.limit) == (8, DOWN_LIMIT)
    store_scale_event(history, {"scaleDown": down}, 10, 8, 0.0)
    assert with_behavior(history, 8, 1, 30.0, down=down).replicas == 8  # the period's 2 pods are used up
    assert with_behavior(history, 8, 1, 61.0, down=down).replicas == 6


def test_the_scale_up_window_applies_the_lowest_recent_recommendation() -> None:
    up = {**DEFAULT_UP, "stabilizationWindowSeconds": 60}
    history = History(recommendations=[(4, 0.0)])
    outcome = with_behavior(history, 4, 9, 30.0, up=up)
    assert (outcome.replicas, outcome.able_to_scale) == (4, UP_STABILIZED)


def test_the_minimum_bounds_a_scale_down() -> None:
    down = {**DEFAULT_DOWN, "stabilizationWindowSeconds": 0}
    outcome = with_behavior(History(), 5, 1, 0.0, down=down, min_replicas=3)
    assert (outcome.replicas, outcome.limit) == (3, TOO_FEW)
