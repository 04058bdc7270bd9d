"""The arithmetic of a Deployment's rollout, as upstream's `deployment/util` computes it: surge and
unavailability fenceposts, the new replica set's next size, the status, and the conditions.

Pure functions over plain objects, so each rule is tested on its own.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import orjson

Obj = dict[str, Any]
HASH_LABEL = "pod-template-hash"
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def replicas_of(rs: Obj) -> int:
    return (rs.get("spec") or {}).get("replicas") or 0


def status_count(rs: Obj, field: str) -> int:
    return (rs.get("status") or {}).get(field) or 0


def scaled_value(value: Any, total: int, round_up: bool) -> int:
    """An int-or-percent (`maxSurge: 25%`) as a number of pods out of `total`."""
    if isinstance(value, int):
        return value
    text = str(value or "0")
    if text.endswith("%"):
        fraction = int(text[:-1]) * total / 100
        return math.ceil(fraction) if round_up else math.floor(fraction)
    return int(text)


def fenceposts(deployment: Obj) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) as numbers of pods; both zero becomes one unavailable (upstream's
    `ResolveFenceposts`). Recreate has neither."""
    spec = deployment.get("spec") or {}
    strategy = spec.get("strategy") or {}
    if (strategy.get("type") or "RollingUpdate") != "RollingUpdate":
        return 0, 0
    rolling = strategy.get("rollingUpdate") or {}
    desired = spec.get("replicas", 1)
    surge = scaled_value(rolling.get("maxSurge", "25%"), desired, True)
    unavailable = scaled_value(rolling.get("maxUnavailable", "25%"), desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_unavailable(deployment: Obj) -> int:
    desired = (deployment.get("spec") or {}).get("replicas", 1)
    if desired == 0 or (((deployment.get("spec") or {}).get("strategy") or {}).get("type") or "RollingUpdate") != (
        "RollingUpdate"
    ):
        return 0
    return min(fenceposts(deployment)[1], desired)


def new_replicas(deployment: Obj, all_sets: list[Obj], new_set: Obj) -> int:
    """The new replica set's next size (upstream's `NewRSNewReplicas`)."""
    desired = deployment["spec"].get("replicas", 1)
    strategy = (deployment["spec"].get("strategy") or {}).get("type") or "RollingUpdate"
    if strategy != "RollingUpdate":
        return desired
    surge, _ = fenceposts(deployment)
    current = sum(replicas_of(rs) for rs in all_sets)
    if current >= desired + surge:
        return replicas_of(new_set)
    step = min(desired + surge - current, desired - replicas_of(new_set))
    return replicas_of(new_set) + step


def template_hash(template: Obj, collision_count: int) -> str:
    """A short stable name for a pod template, in upstream's alphabet (fnv-1a 32 of the template)."""
    data = orjson.dumps(template, option=orjson.OPT_SORT_KEYS) + (
        str(collision_count).encode() if collision_count else b""
    )
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE_ALPHABET[ord(char) % len(_SAFE_ALPHABET)] for char in str(value))


def without_hash(template: Obj) -> Obj:
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    labels.pop(HASH_LABEL, None)
    return {**template, "metadata": {**(template.get("metadata") or {}), "labels": labels}}


def same_template(a: Obj, b: Obj) -> bool:
    """Upstream's `EqualIgnoreHash`: equal once the hash label is dropped from both."""
    return without_hash(a) == without_hash(b)


def rfc3339(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(status: Obj, kind: str) -> Obj | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == kind), None)


def set_condition(status: Obj, kind: str, truth: str, reason: str, message: str, wall: float) -> None:
    """Upstream's `SetDeploymentCondition`: an identical status and reason changes nothing; the same
    status keeps its transition time."""
    current = condition(status, kind)
    if current is not None and current.get("status") == truth and current.get("reason") == reason:
        return
    now = rfc3339(wall)
    new = {
        "type": kind,
        "status": truth,
        "lastUpdateTime": now,
        "lastTransitionTime": current["lastTransitionTime"] if current and current.get("status") == truth else now,
        "reason": reason,
        "message": message,
    }
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != kind] + [new]


def remove_condition(status: Obj, kind: str) -> None:
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != kind]


def calculate_status(deployment: Obj, all_sets: list[Obj], new_set: Obj | None, wall: float) -> Obj:
    available = sum(status_count(rs, "availableReplicas") for rs in all_sets)
    total = sum(replicas_of(rs) for rs in all_sets)
    current = deployment.get("status") or {}
    status: Obj = {
        "observedGeneration": deployment["metadata"].get("generation", 0),
        "replicas": sum(status_count(rs, "replicas") for rs in all_sets),
        "updatedReplicas": status_count(new_set, "replicas") if new_set else 0,
        "readyReplicas": sum(status_count(rs, "readyReplicas") for rs in all_sets),
        "availableReplicas": available,
        "unavailableReplicas": max(total - available, 0),
    }
    if current.get("collisionCount"):
        status["collisionCount"] = current["collisionCount"]
    status["conditions"] = [dict(c) for c in current.get("conditions") or []]
    desired = deployment["spec"].get("replicas", 1)
    if available >= desired - max_unavailable(deployment):
        set_condition(
            status, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", wall
        )
    else:
        set_condition(
            status,
            "Available",
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
            wall,
        )
    return status


def complete(deployment: Obj, status: Obj) -> bool:
    desired = deployment["spec"].get("replicas", 1)
    return (
        status.get("updatedReplicas") == desired
        and status.get("replicas") == desired
        and status.get("availableReplicas") == desired
        and status.get("observedGeneration", 0) >= deployment["metadata"].get("generation", 0)
    )


def progressing(deployment: Obj, status: Obj) -> bool:
    old = deployment.get("status") or {}

    def old_pods(s: Obj) -> int:
        return (s.get("replicas") or 0) - (s.get("updatedReplicas") or 0)

    return (
        (status.get("updatedReplicas") or 0) > (old.get("updatedReplicas") or 0)
        or (status.get("readyReplicas") or 0) > (old.get("readyReplicas") or 0)
        or (status.get("availableReplicas") or 0) > (old.get("availableReplicas") or 0)
        or old_pods(status) < old_pods(old)
    )


def timed_out(deployment: Obj, status: Obj, wall: float) -> bool:
    deadline = deployment["spec"].get("progressDeadlineSeconds")
    current = condition(status, "Progressing")
    if (
        deadline is None
        or current is None
        or current.get("reason") in ("NewReplicaSetAvailable", "ProgressDeadlineExceeded")
    ):
        return False
    updated = datetime.fromisoformat(current["lastUpdateTime"].replace("Z", "+00:00")).timestamp()
    return updated + deadline < wall


def _created(rs: Obj) -> tuple[str, str]:
    return rs["metadata"].get("creationTimestamp", ""), rs["metadata"]["name"]


def _round_half_away(value: float) -> int:
    """Go's `math.Round`: halves away from zero (Python's `round` goes to even)."""
    return math.floor(abs(value) + 0.5) * (1 if value >= 0 else -1)


def _fraction(rs: Obj, deployment: Obj, max_key: str) -> int:
    """Upstream's `getReplicaSetFraction`: how much of the change this set takes, by its share of
    the size the Deployment had (its `max-replicas` annotation) when the set was last scaled."""
    desired = deployment["spec"].get("replicas", 1)
    if desired == 0:
        return -replicas_of(rs)
    surge, _ = fenceposts(deployment)
    text = (rs["metadata"].get("annotations") or {}).get(max_key, "")
    before = int(text) if text.isdigit() else 0
    if before == 0:
        before = status_count(deployment, "replicas")
    if before == 0:
        return 0
    return _round_half_away(replicas_of(rs) * (desired + surge) / before) - replicas_of(rs)


def _saturated(deployment: Obj, rs: Obj | None, desired_key: str) -> bool:
    if rs is None:
        return False
    desired = deployment["spec"].get("replicas", 1)
    annotation = (rs["metadata"].get("annotations") or {}).get(desired_key, "")
    available = status_count(rs, "availableReplicas")
    return replicas_of(rs) == desired and annotation == str(desired) and available == desired


def scale_plan(
    deployment: Obj, new: Obj | None, old: list[Obj], *, desired_key: str, max_key: str
) -> list[tuple[Obj, int]]:
    """Upstream's `scale` (a paused Deployment, or only `replicas` changed): the sets to resize, with
    their sizes. One active set (or none: the newest) takes the whole count; a saturated new set
    leaves the old ones at zero; otherwise, in a rolling update, the change up to `replicas +
    maxSurge` is spread over the active sets in proportion to their size, largest first (newer
    first when scaling up, older first when scaling down), the rounding leftover going to the first."""
    desired = deployment["spec"].get("replicas", 1)
    newest_first = sorted(old, key=_created, reverse=True)
    active = [rs for rs in [*newest_first, *([new] if new else [])] if replicas_of(rs) > 0]
    if new is not None or old:
        if not active:
            return [(new if new is not None else newest_first[0], desired)]
        if len(active) == 1:
            return [(active[0], desired)]
    if _saturated(deployment, new, desired_key):
        return [(rs, 0) for rs in old if replicas_of(rs) > 0]
    if (((deployment["spec"].get("strategy") or {}).get("type")) or "RollingUpdate") != "RollingUpdate":
        return []
    surge, _ = fenceposts(deployment)
    allowed = desired + surge if desired > 0 else 0
    to_add = allowed - sum(replicas_of(rs) for rs in active)
    if to_add > 0:
        ordered = sorted(active, key=_created, reverse=True)
        ordered.sort(key=replicas_of, reverse=True)
    else:
        ordered = sorted(active, key=_created)
        ordered.sort(key=replicas_of, reverse=True)
    sizes: list[int] = []
    added = 0
    for rs in ordered:
        proportion = 0
        if to_add != 0 and added != to_add:
            fraction = _fraction(rs, deployment, max_key)
            proportion = min(fraction, to_add - added) if to_add > 0 else max(fraction, to_add - added)
        sizes.append(replicas_of(rs) + proportion)
        added += proportion
    if ordered and to_add != 0:
        sizes[0] = max(sizes[0] + to_add - added, 0)
    return list(zip(ordered, sizes, strict=True))
