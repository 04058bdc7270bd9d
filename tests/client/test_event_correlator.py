"""client-go's event correlation in the recorder: repeats counted, similar events combined after 10
distinct messages in 10 minutes, and 25 events per source and object then one per 5 minutes."""

from __future__ import annotations

import asyncio

from svc.client.clock import FakeClock
from svc.client.events import WARNING, EventRecorder
from tests.controllers.fakes import RecordingClient

POD = {"metadata": {"name": "p", "namespace": "team", "uid": "u1"}}
EVENTS = "/api/v1/namespaces/team/events"


def recorder() -> tuple[EventRecorder, RecordingClient, FakeClock]:
    client, clock = RecordingClient(), FakeClock()
    return EventRecorder(client, "test-controller", clock=clock), client, clock


def record(events: EventRecorder, message: str, reason: str = "Failed", obj: dict = POD) -> None:
    asyncio.run(events.event(obj, "Pod", "v1", WARNING, reason, message))


def test_a_repeat_patches_count_last_timestamp_and_message_of_the_first_event() -> None:
    events, client, clock = recorder()
    record(events, "boom")
    asyncio.run(clock.advance(3))
    record(events, "boom")
    (verb, path, created), (verb2, path2, patch) = client.events
    assert (verb, path, created["count"]) == ("create", EVENTS, 1)
    assert (verb2, path2) == ("patch:strategic", f"{EVENTS}/{created['metadata']['name']}")
    assert patch == {"count": 2, "lastTimestamp": "1970-01-01T00:16:43Z", "message": "boom"}


def test_the_tenth_distinct_message_in_ten_minutes_is_combined_into_one_event() -> None:
    events, client, clock = recorder()
    for index in range(9):
        record(events, f"error {index}")
    assert [verb for verb, _, _ in client.events] == ["create"] * 9
    asyncio.run(clock.advance(1))
    record(events, "error 9")
    record(events, "error 10")
    (verb, _, combined), (verb2, path2, patch) = client.events[9:]
    assert (verb, combined["message"], combined["count"]) == ("create", "(combined from similar events): error 9", 1)
    assert (verb2, path2) == ("patch:strategic", f"{EVENTS}/{combined['metadata']['name']}")
    assert patch["count"] == 2
    assert patch["message"] == "(combined from similar events): error 10"


def test_similar_events_more_than_ten_minutes_apart_start_a_new_count() -> None:
    events, client, clock = recorder()
    for index in range(9):
        record(events, f"error {index}")
    asyncio.run(clock.advance(601))
    record(events, "error 9")
    assert client.events[-1][2]["message"] == "error 9"


def test_a_source_gets_25_events_about_an_object_then_one_per_5_minutes() -> None:
    events, client, clock = recorder()
    for index in range(30):
        record(events, "same", reason=f"Reason{index}")
    assert len(client.events) == 25
    asyncio.run(clock.advance(299))
    record(events, "same", reason="Late")
    assert len(client.events) == 25
    asyncio.run(clock.advance(1))
    record(events, "same", reason="Later")
    assert len(client.events) == 26
    other = {"metadata": {"name": "q", "namespace": "team", "uid": "u2"}}
    record(events, "same", obj=other)
    assert len(client.events) == 27


def test_a_dropped_repeat_still_counts() -> None:
    events, client, clock = recorder()
    for index in range(24):
        record(events, "filler", reason=f"R{index}")
    record(events, "boom")
    record(events, "boom")
    asyncio.run(clock.advance(300))
    record(events, "boom")
    assert client.events[-1][2]["count"] == 3


def test_an_event_write_that_times_out_is_dropped_and_the_caller_goes_on() -> None:
    class TimingOut(RecordingClient):
        async def create(self, path: str, body: dict) -> dict:
            raise TimeoutError("timed out")

    events = EventRecorder(TimingOut(), "test-controller", clock=FakeClock())
    record(events, "boom")
