"""The rules a Job's outcome follows, as upstream's job controller applies them: pod failure policy,
success policy, completed-index sets, and the back-off between pod replacements.

Pure functions over plain objects, tested one rule at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]
BACKOFF_BASE = 10.0
BACKOFF_MAX = 360.0


def only_replaces_failed(job: Obj) -> bool:
    """Upstream's `onlyReplaceFailedPods`: a Job with `podReplacementPolicy: Failed` or a pod failure
    policy waits for a deleted pod to fail before replacing it."""
    spec = job.get("spec") or {}
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def considered_failed(job: Obj, pod: Obj) -> bool:
    """Upstream's `isPodFailed`: a Failed pod, or (unless the Job only replaces failed pods) a deleted pod
    that did not succeed, so that a pod removed before it could fail is not lost."""
    phase = (pod.get("status") or {}).get("phase")
    if phase == "Failed":
        return True
    if only_replaces_failed(job):
        return False
    return bool((pod.get("metadata") or {}).get("deletionTimestamp")) and phase != "Succeeded"


def backoff_delay(failures: int) -> float:
    """Upstream's pod replacement back-off: 10 s doubled per consecutive failure, at most 6 min."""
    if failures <= 0:
        return 0.0
    return min(BACKOFF_BASE * 2 ** (failures - 1), BACKOFF_MAX)


def surplus_pods(
    active: list[Obj],
    want: int,
    rank: Callable[[Obj], Any],
    index_of: Callable[[Obj], int | None] | None = None,
    completions: int = 0,
) -> list[Obj]:
    """Upstream's `activePodsForRemoval`: the active pods to delete. With `index_of` (an Indexed Job),
    every pod without an index below `completions` and, per index, all but its last pod in `rank`
    order (the pods to delete first sort first); then, while more than `want` would be left, the
    remaining pods that sort first."""
    doomed: list[Obj] = []
    left = active
    if index_of is not None:
        by_index: dict[int, list[Obj]] = {}
        for pod in active:
            index = index_of(pod)
            if index is None or index >= completions:
                doomed.append(pod)
            else:
                by_index.setdefault(index, []).append(pod)
        left = []
        for pods in by_index.values():
            ranked = sorted(pods, key=rank)
            doomed += ranked[:-1]
            left.append(ranked[-1])
    extra = len(active) - want - len(doomed)
    if extra > 0:
        doomed += sorted(left, key=rank)[:extra]
    return doomed


def format_indexes(indexes: Iterable[int]) -> str:
    """`1,3-5,7`: upstream's compressed form of `completedIndexes` and `failedIndexes`."""
    ordered = sorted(set(indexes))
    parts: list[str] = []
    start = previous = None
    for index in ordered:
        if previous is not None and index == previous + 1:
            previous = index
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = index
    if start is not None:
        parts.append(str(start) if start == previous else f"{start}-{previous}")
    return ",".join(parts)


def parse_indexes(text: str | None, limit: int) -> set[int]:
    """The indexes of a compressed set, those below `limit`; malformed parts are skipped."""
    found: set[int] = set()
    for part in (text or "").split(","):
        low, _, high = part.partition("-")
        try:
            first, last = int(low), int(high or low)
        except ValueError:
            continue
        found.update(index for index in range(first, last + 1) if 0 <= index < limit)
    return found


@dataclass(frozen=True)
class FailureMatch:
    action: str
    rule: int
    message: str


def _exit_code_matches(requirement: Obj, pod: Obj) -> tuple[str, int] | None:
    """The container and exit code a rule's `onExitCodes` matches, if any."""
    operator = requirement.get("operator")
    values = set(requirement.get("values") or [])
    wanted_container = requirement.get("containerName")
    status = pod.get("status") or {}
    containers = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
    for container in containers:
        if wanted_container and container.get("name") != wanted_container:
            continue
        terminated = (container.get("state") or {}).get("terminated")
        if not terminated:
            continue
        code = terminated.get("exitCode", 0)
        if code == 0:
            continue
        if (operator == "In" and code in values) or (operator == "NotIn" and code not in values):
            return container.get("name", ""), code
    return None


def match_failure_policy(job: Obj, pod: Obj) -> FailureMatch | None:
    """The first pod failure policy rule the failed pod matches (upstream's `matchPodFailurePolicy`)."""
    rules = ((job.get("spec") or {}).get("podFailurePolicy") or {}).get("rules") or []
    metadata = pod["metadata"]
    for index, rule in enumerate(rules):
        action = rule.get("action", "")
        on_codes = rule.get("onExitCodes")
        if on_codes:
            matched = _exit_code_matches(on_codes, pod)
            if matched is not None:
                container, code = matched
                message = (
                    f"Container {container} for pod {metadata['namespace']}/{metadata['name']} failed with exit "
                    f"code {code} matching {action} rule at index {index}"
                )
                return FailureMatch(action, index, message)
            continue
        conditions = {c.get("type"): c.get("status") for c in (pod.get("status") or {}).get("conditions") or []}
        for pattern in rule.get("onPodConditions") or []:
            if conditions.get(pattern.get("type")) == (pattern.get("status") or "True"):
                message = (
                    f"Pod {metadata['namespace']}/{metadata['name']} has condition {pattern.get('type')} matching "
                    f"{action} rule at index {index}"
                )
                return FailureMatch(action, index, message)
    return None


def success_policy_met(job: Obj, succeeded_indexes: set[int]) -> int | None:
    """The index of the first success policy rule an Indexed Job meets, or None."""
    spec = job.get("spec") or {}
    completions = spec.get("completions") or 0
    for index, rule in enumerate((spec.get("successPolicy") or {}).get("rules") or []):
        wanted = rule.get("succeededIndexes")
        count = rule.get("succeededCount")
        considered = parse_indexes(wanted, completions) if wanted is not None else set(range(completions))
        done = len(considered & succeeded_indexes) if wanted is not None else len(succeeded_indexes)
        if wanted is not None and count is None and considered <= succeeded_indexes:
            return index
        if count is not None and done >= count:
            return index
    return None
