"""`self` typed by a CRD's structural schema: formats become CEL types, odd names are escaped."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from svc.machinery.cel import Environment
from svc.machinery.cel.schema_values import converter, escape_property_name
from svc.machinery.cel.values import NANOS, CelError, Duration, Timestamp

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "startTime": {"type": "string", "format": "date-time"},
                "timeout": {"type": "string", "format": "duration"},
                "x-y": {"type": "integer"},
                "namespace": {"type": "string"},
                "payload": {"type": "string", "format": "byte"},
            },
        }
    },
}
OBJECT = {
    "spec": {
        "startTime": "2024-01-02T03:04:05Z",
        "timeout": "1m30s",
        "x-y": 2,
        "namespace": "ns",
        "payload": "aGVsbG8=",
    }
}


def test_a_schema_without_formats_or_odd_names_passes_objects_through() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer"}}}}}
    assert converter(schema) is None


def test_date_time_strings_are_timestamps() -> None:
    self = converter(SCHEMA)(OBJECT)
    start = self["spec"]["startTime"]
    assert type(start) is Timestamp
    assert start == int(datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()) * NANOS


def test_duration_strings_are_durations() -> None:
    timeout = converter(SCHEMA)(OBJECT)["spec"]["timeout"]
    assert type(timeout) is Duration
    assert timeout == 90 * NANOS


def test_byte_strings_are_bytes() -> None:
    assert converter(SCHEMA)(OBJECT)["spec"]["payload"] == b"hello"


def test_rules_reach_escaped_property_names() -> None:
    self = converter(SCHEMA)(OBJECT)
    program = Environment(["self"]).compile("self.spec.x__dash__y == 2 && self.spec.__namespace__ == 'ns'")
    assert program.evaluate({"self": self}) is True


def test_rules_use_timestamp_arithmetic_on_formatted_fields() -> None:
    self = converter(SCHEMA)(OBJECT)
    program = Environment(["self"]).compile(
        "self.spec.startTime + self.spec.timeout > timestamp('2024-01-02T03:05:00Z')"
    )
    assert program.evaluate({"self": self}) is True


def test_escaping_follows_upstreams_rules() -> None:
    assert [escape_property_name(n) for n in ("a.b", "a/b", "a__b", "if", "1a", "a b")] == [
        "a__dot__b",
        "a__slash__b",
        "a__underscores__b",
        "__if__",
        None,
        None,
    ]


def test_duration_strings_in_days_are_durations() -> None:
    schema = {"type": "object", "properties": {"ttl": {"type": "string", "format": "duration"}}}
    assert converter(schema)({"ttl": "2d"})["ttl"] == 2 * 86400 * NANOS


def test_a_string_that_is_no_duration_fails_in_upstreams_words() -> None:
    schema = {"type": "object", "properties": {"ttl": {"type": "string", "format": "duration"}}}
    with pytest.raises(CelError, match="Invalid duration soon: unable to parse soon as duration"):
        converter(schema)({"ttl": "soon"})
