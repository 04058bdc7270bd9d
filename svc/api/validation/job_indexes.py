"""The interval form of a Job's `completedIndexes` and `failedIndexes` ("1,3-5,7") as upstream's status
validation reads it (`validateIndexesFormat`, `validateFailedIndexesNotOverlapCompleted`), with its
error texts."""

from __future__ import annotations

import re
from typing import Final

from svc.machinery.gotext import quote

_GO_INT: Final = re.compile(r"[+-]?[0-9]+")
_MAX_INT: Final = 2**63 - 1


class _Unreadable(ValueError):
    """An interval upstream cannot read; the message is upstream's."""


def _atoi(text: str) -> int:
    """Go's `strconv.Atoi`: an optional sign and decimal digits within int64."""
    if not _GO_INT.fullmatch(text) or abs(int(text)) > _MAX_INT:
        raise _Unreadable(f"cannot convert string to integer for index: {quote(text)}")
    return int(text)


def _interval(fragment: str, completions: int) -> tuple[int, int]:
    limits = fragment.split("-")
    if len(limits) > 2:
        raise _Unreadable(
            f"the fragment {quote(fragment)} violates the requirement that an index interval can have at most "
            "two parts separated by '-'"
        )
    bounds = []
    for limit in limits:
        value = _atoi(limit)
        if value >= completions:
            raise _Unreadable(f"too large index: {quote(limit)}")
        bounds.append(value)
    if len(bounds) == 2 and bounds[0] >= bounds[1]:
        raise _Unreadable(f"non-increasing order, previous: {bounds[0]}, current: {bounds[1]}")
    return bounds[0], bounds[-1]


def format_error(indexes: str, completions: int) -> str | None:
    """Why `indexes` is not increasing intervals below `completions`, or None."""
    last: int | None = None
    try:
        for fragment in indexes.split(",") if indexes else ():
            first, end = _interval(fragment, completions)
            if last is not None and last >= first:
                return f"non-increasing order, previous: {last}, current: {first}"
            last = end
    except _Unreadable as error:
        return str(error)
    return None


def _readable(indexes: str, completions: int) -> list[tuple[int, int]]:
    """The intervals that parse (the others are reported by the format check)."""
    intervals = []
    for fragment in indexes.split(","):
        try:
            intervals.append(_interval(fragment, completions))
        except _Unreadable:
            continue
    return intervals


def overlap_error(completed: str, failed: str, completions: int) -> str | None:
    """The first index both lists hold (walking both in order as upstream does), or None."""
    if not completed or not failed:
        return None
    done, lost = _readable(completed, completions), _readable(failed, completions)
    done_at = lost_at = 0
    while done_at < len(done) and lost_at < len(lost):
        (done_first, done_end), (lost_first, lost_end) = done[done_at], lost[lost_at]
        if done_first <= lost_end and lost_first <= done_end:
            return f"failedIndexes and completedIndexes overlap at index: {max(done_first, lost_first)}"
        if done_first <= lost_first:
            done_at += 1
        else:
            lost_at += 1
    return None
