"""From a metric's recommendation to the replica count applied: stabilization and rate limits.

Upstream's `normalizeDesiredReplicas` (no `behavior`: the highest recommendation of the downscale
stabilization window, then at most max(2x, 4) up, within min/max) and
`normalizeDesiredReplicasWithBehaviors` (each direction's stabilization window over the recorded
recommendations, then the policies' limits over the scale events of their periods, picked by
`selectPolicy`), each giving the reason and message of the AbleToScale and ScalingLimited conditions.
The history of one autoscaler (recommendations and scale events) is kept by the controller in memory,
as upstream does, and timestamps come from the controller's clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]
_MAX_INT32 = 2**31 - 1
_MIN_INT32 = -(2**31)

READY = ("ReadyForNewScale", "recommended size matches current size")
DOWN_STABILIZED = (
    "ScaleDownStabilized",
    "recent recommendations were higher than current one, applying the highest recent recommendation",
)
UP_STABILIZED = (
    "ScaleUpStabilized",
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
)
WITHIN_RANGE = ("DesiredWithinRange", "the desired count is within the acceptable range")
TOO_MANY = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
TOO_FEW = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")
UP_LIMIT = ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")
DOWN_LIMIT = ("ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate")


@dataclass
class Event:
    change: int
    timestamp: float
    outdated: bool = False


@dataclass
class History:
    """One autoscaler's recommendations (replicas, time) and scale events, both directions."""

    recommendations: list[tuple[int, float]] = field(default_factory=list)
    ups: list[Event] = field(default_factory=list)
    downs: list[Event] = field(default_factory=list)


@dataclass(frozen=True)
class Outcome:
    replicas: int
    able_to_scale: tuple[str, str]
    """Reason and message of AbleToScale (status True)."""
    limited: bool
    limit: tuple[str, str]
    """Reason and message of ScalingLimited."""


def _record(history: History, recommendation: int, now: float, cutoff: float) -> None:
    """Replace one sample older than `cutoff` (upstream reuses the last such slot), else append."""
    old = [i for i, (_, stamp) in enumerate(history.recommendations) if stamp < cutoff]
    if old:
        history.recommendations[old[-1]] = (recommendation, now)
    else:
        history.recommendations.append((recommendation, now))


def normalize(
    history: History, *, current: int, desired: int, min_replicas: int, max_replicas: int, window: float, now: float
) -> Outcome:
    """Without `behavior`: the downscale stabilization window and the historic scale-up limit."""
    cutoff = now - window
    stabilized = desired
    for recommendation, stamp in history.recommendations:
        if stamp >= cutoff:
            stabilized = max(stabilized, recommendation)
    _record(history, desired, now, cutoff)
    able = DOWN_STABILIZED if stabilized != desired else READY
    scale_up_limit = max(2 * current, 4)
    if max_replicas > scale_up_limit:
        maximum, reason = scale_up_limit, UP_LIMIT
    else:
        maximum, reason = max_replicas, TOO_MANY
    if stabilized < min_replicas:
        replicas, limit = min_replicas, TOO_FEW
    elif stabilized > maximum:
        replicas, limit = maximum, reason
    else:
        replicas, limit = stabilized, WITHIN_RANGE
    return Outcome(replicas, able, replicas != stabilized, limit)


def _window(rules: Obj, default: float) -> float:
    value = rules.get("stabilizationWindowSeconds")
    return float(default if value is None else value)


def _change_in_period(events: list[Event], period: float, now: float) -> int:
    cutoff = now - period
    return sum(event.change for event in events if event.timestamp > cutoff)


def scale_up_limit(current: int, history: History, rules: Obj, now: float) -> int:
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    result, pick = (_MAX_INT32, min) if select == "Min" else (_MIN_INT32, max)
    for policy in rules.get("policies") or ():
        period = float(policy.get("periodSeconds") or 0)
        start = current - _change_in_period(history.ups, period, now) + _change_in_period(history.downs, period, now)
        value = int(policy.get("value") or 0)
        proposed = start + value if policy.get("type") == "Pods" else math.ceil(start * (1 + value / 100))
        result = pick(result, proposed)
    return result


def scale_down_limit(current: int, history: History, rules: Obj, now: float) -> int:
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    result, pick = (_MIN_INT32, max) if select == "Min" else (_MAX_INT32, min)
    for policy in rules.get("policies") or ():
        period = float(policy.get("periodSeconds") or 0)
        start = current - _change_in_period(history.ups, period, now) + _change_in_period(history.downs, period, now)
        value = int(policy.get("value") or 0)
        proposed = start - value if policy.get("type") == "Pods" else int(start * (1 - value / 100))
        result = pick(result, proposed)
    return result


def normalize_with_behavior(
    history: History,
    behavior: Obj,
    *,
    current: int,
    desired: int,
    min_replicas: int,
    max_replicas: int,
    default_down_window: float,
    now: float,
) -> Outcome:
    """With `behavior`: both stabilization windows, then the policies' rate limits."""
    up_rules, down_rules = behavior.get("scaleUp") or {}, behavior.get("scaleDown") or {}
    up_cutoff = now - _window(up_rules, 0.0)
    down_cutoff = now - _window(down_rules, default_down_window)
    up_recommendation = down_recommendation = desired
    for recommendation, stamp in history.recommendations:
        if stamp > up_cutoff:
            up_recommendation = min(up_recommendation, recommendation)
        if stamp > down_cutoff:
            down_recommendation = max(down_recommendation, recommendation)
    stabilized = min(max(current, up_recommendation), down_recommendation)
    _record(history, desired, now, min(up_cutoff, down_cutoff))
    stabilized_reason = UP_STABILIZED if desired >= current else DOWN_STABILIZED
    able = stabilized_reason if stabilized != desired else READY
    replicas, limit = stabilized, WITHIN_RANGE
    if stabilized > current:
        limit_up = max(scale_up_limit(current, history, up_rules, now), current)
        maximum, reason = (limit_up, UP_LIMIT) if max_replicas > limit_up else (max_replicas, TOO_MANY)
        if stabilized > maximum:
            replicas, limit = maximum, reason
    elif stabilized < current:
        limit_down = min(scale_down_limit(current, history, down_rules, now), current)
        minimum, reason = (limit_down, DOWN_LIMIT) if min_replicas < limit_down else (min_replicas, TOO_FEW)
        if stabilized < minimum:
            replicas, limit = minimum, reason
    return Outcome(replicas, able, replicas != stabilized, limit)


def _longest_period(rules: Obj) -> float:
    return max((float(p.get("periodSeconds") or 0) for p in rules.get("policies") or ()), default=0.0)


def store_scale_event(history: History, behavior: Obj | None, previous: int, new: int, now: float) -> None:
    """Record a rescale for the rate limits of later syncs (only autoscalers with `behavior` keep them)."""
    if behavior is None or new == previous:
        return
    up = new > previous
    events = history.ups if up else history.downs
    period = _longest_period(behavior.get("scaleUp" if up else "scaleDown") or {})
    for event in events:
        if event.timestamp < now - period:
            event.outdated = True
    change = abs(new - previous)
    slot = next((i for i, event in enumerate(events) if event.outdated), None)
    if slot is None:
        events.append(Event(change, now))
    else:
        events[slot] = Event(change, now)
