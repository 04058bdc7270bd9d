"""Event columns, for the core/v1 and the events.k8s.io/v1 shapes of an event.

Both API groups serve the same stored events and upstream prints them with one table: LAST SEEN, TYPE,
REASON, OBJECT ("kind/name" in lower case), MESSAGE, and the wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT,
NAME. The events.k8s.io shape names several fields differently; `EventFields` says where each one is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from svc.api.columns import descriptions, timing
from svc.api.columns.common import field, name_column, number, text
from svc.wire.views import Column, Obj


@dataclass(frozen=True)
class EventFields:
    first_timestamp: str
    last_timestamp: str
    count: str
    involved_object: str
    source: str
    reporting_controller: str
    message: str


CORE_FIELDS = EventFields(
    "firstTimestamp", "lastTimestamp", "count", "involvedObject", "source", "reportingComponent", "message"
)
EVENTS_API_FIELDS = EventFields(
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "deprecatedCount",
    "regarding",
    "deprecatedSource",
    "reportingController",
    "note",
)


def _first_seen(fields: EventFields) -> Callable[[Obj], str]:
    def cell(event: Obj) -> str:
        if timing.parse_time(field(event, fields.first_timestamp)) is not None:
            return timing.since(field(event, fields.first_timestamp))
        return timing.since(field(event, "eventTime"))

    return cell


def _last_seen(fields: EventFields) -> Callable[[Obj], str]:
    first_seen = _first_seen(fields)

    def cell(event: Obj) -> str:
        if isinstance(field(event, "series"), dict):
            return timing.since(field(event, "series", "lastObservedTime"))
        if timing.parse_time(field(event, fields.last_timestamp)) is not None:
            return timing.since(field(event, fields.last_timestamp))
        return first_seen(event)

    return cell


def _count(fields: EventFields) -> Callable[[Obj], int]:
    def cell(event: Obj) -> int:
        if isinstance(field(event, "series"), dict):
            return number(event, "series", "count")
        return number(event, fields.count) or 1

    return cell


def _object(fields: EventFields) -> Callable[[Obj], str]:
    def cell(event: Obj) -> str:
        kind = text(event, fields.involved_object, "kind").lower()
        name = text(event, fields.involved_object, "name")
        return f"{kind}/{name}" if name else kind

    return cell


def _source(fields: EventFields) -> Callable[[Obj], str]:
    """`component, host`, each falling back to the reporting controller and instance; no host, no comma."""

    def cell(event: Obj) -> str:
        component = text(event, fields.source, "component") or text(event, fields.reporting_controller)
        host = text(event, fields.source, "host") or text(event, "reportingInstance")
        return f"{component}, {host}" if host else component

    return cell


def event_columns(fields: EventFields) -> tuple[Column, ...]:
    return (
        Column("Last Seen", "string", _last_seen(fields), description=descriptions.EVENT_LAST_TIMESTAMP),
        Column("Type", "string", lambda event: text(event, "type"), description=descriptions.EVENT_TYPE),
        Column("Reason", "string", lambda event: text(event, "reason"), description=descriptions.EVENT_REASON),
        Column("Object", "string", _object(fields), description=descriptions.EVENT_INVOLVED_OBJECT),
        Column(
            "Subobject",
            "string",
            lambda event: text(event, fields.involved_object, "fieldPath"),
            description=descriptions.EVENT_FIELD_PATH,
            priority=1,
        ),
        Column("Source", "string", _source(fields), description=descriptions.EVENT_SOURCE, priority=1),
        Column(
            "Message",
            "string",
            lambda event: text(event, fields.message).strip(),
            description=descriptions.EVENT_MESSAGE,
        ),
        Column("First Seen", "string", _first_seen(fields), description=descriptions.EVENT_FIRST_TIMESTAMP, priority=1),
        Column("Count", "string", _count(fields), description=descriptions.EVENT_COUNT, priority=1),
        name_column(priority=1),
    )


CORE_EVENT = event_columns(CORE_FIELDS)
EVENTS_API_EVENT = event_columns(EVENTS_API_FIELDS)
