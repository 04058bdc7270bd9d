"""Event updates check only what may not change: the new object is not validated again, as upstream's
event strategy does (an Event may have been written through the legacy API)."""

from __future__ import annotations

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_cluster_kinds import CORE_EVENT, EVENT, EVENTS


def test_a_legacy_event_updated_through_events_v1_is_not_revalidated() -> None:
    legacy = with_path(EVENT, "eventTime", ...)
    assert causes(EVENTS, "Event", legacy) != []
    assert causes(EVENTS, "Event", with_path(legacy, "metadata.labels", {"a": "b"}), old=legacy) == []


def test_an_events_v1_update_may_not_change_the_note() -> None:
    changed = with_path(EVENT, "note", "different")
    assert_causes(causes(EVENTS, "Event", changed, old=EVENT), [("message", "FieldValueInvalid", "field is immutable")])


def test_a_core_event_update_checks_nothing_beyond_metadata() -> None:
    mismatched = with_path(CORE_EVENT, "involvedObject.namespace", "other")
    assert causes("", "Event", mismatched) != []
    assert causes("", "Event", mismatched, old=CORE_EVENT) == []
