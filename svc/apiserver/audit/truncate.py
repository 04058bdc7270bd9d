"""Upstream's truncating backend: an event over the size limit loses its request and response
objects first (and says so in the `audit.k8s.io/truncated` annotation), and is discarded if it is
still too large; a batch over its limit is split into batches that fit."""

from __future__ import annotations

import logging
from typing import Any

import orjson

from svc.apiserver.audit.options import TruncateOptions

log = logging.getLogger(__name__)
Event = dict[str, Any]
TRUNCATED_ANNOTATION = "audit.k8s.io/truncated"


def _size(event: Event) -> int:
    return len(orjson.dumps(event))


def truncate_event(event: Event, limit: int) -> tuple[Event | None, int]:
    """The event within `limit` bytes (or None when even the cut-down event is too large), and its size."""
    size = _size(event)
    if size <= limit:
        return event, size
    cut = {key: value for key, value in event.items() if key not in ("requestObject", "responseObject")}
    cut["annotations"] = {**(event.get("annotations") or {}), TRUNCATED_ANNOTATION: "true"}
    size = _size(cut)
    if size <= limit:
        return cut, size
    log.error(
        "audit event %s is %d bytes even truncated, over the limit of %d: dropped", event.get("auditID"), size, limit
    )
    return None, size


def truncate_batch(events: list[Event], options: TruncateOptions) -> list[list[Event]]:
    """The events cut to the event limit and grouped into batches within the batch limit, in order."""
    if not options.enabled:
        return [events] if events else []
    batches: list[list[Event]] = []
    current: list[Event] = []
    current_size = 0
    for event in events:
        kept, size = truncate_event(event, options.max_event_size)
        if kept is None:
            continue
        if current and current_size + size > options.max_batch_size:
            batches.append(current)
            current, current_size = [], 0
        current.append(kept)
        current_size += size
    if current:
        batches.append(current)
    return batches
