from __future__ import annotations

from typing import Any

import pytest

from svc.api.columns import columns_for, descriptions, events
from tests.api.columns.support import ago, cells, headers, micro_ago


def core_event(**fields: Any) -> dict[str, Any]:
    return {
        "kind": "Event",
        "metadata": {"name": "web-0.17c1", "namespace": "default", "creationTimestamp": ago(minutes=20)},
        "involvedObject": {"kind": "Pod", "name": "web-0", "fieldPath": "spec.containers{nginx}"},
        "reason": "Pulled",
        "message": 'Successfully pulled image "nginx"\n',
        "type": "Normal",
        **fields,
    }


def test_event_columns_match_upstream() -> None:
    assert headers(events.CORE_EVENT) == [
        ("Last Seen", "string", "", 0),
        ("Type", "string", "", 0),
        ("Reason", "string", "", 0),
        ("Object", "string", "", 0),
        ("Subobject", "string", "", 1),
        ("Source", "string", "", 1),
        ("Message", "string", "", 0),
        ("First Seen", "string", "", 1),
        ("Count", "string", "", 1),
        ("Name", "string", "name", 1),
    ]
    assert headers(events.EVENTS_API_EVENT) == headers(events.CORE_EVENT)
    assert events.CORE_EVENT[3].description == descriptions.EVENT_INVOLVED_OBJECT


def test_a_core_event_with_timestamps_and_count() -> None:
    obj = core_event(
        firstTimestamp=ago(minutes=20),
        lastTimestamp=ago(minutes=2),
        count=4,
        source={"component": "kubelet", "host": "node-1"},
    )
    assert cells(events.CORE_EVENT, obj) == [
        "2m",
        "Normal",
        "Pulled",
        "pod/web-0",
        "spec.containers{nginx}",
        "kubelet, node-1",
        'Successfully pulled image "nginx"',
        "20m",
        4,
        "web-0.17c1",
    ]


def test_a_singleton_event_of_the_new_api_falls_back_to_event_time_and_reporter() -> None:
    obj = core_event(
        eventTime=micro_ago(seconds=30),
        reportingComponent="default-scheduler",
        reportingInstance="",
        involvedObject={"kind": "Node"},
    )
    assert cells(events.CORE_EVENT, obj)[:8] == [
        "30s",
        "Normal",
        "Pulled",
        "node",
        "",
        "default-scheduler",
        'Successfully pulled image "nginx"',
        "30s",
    ]
    assert cells(events.CORE_EVENT, obj)[8] == 1


def test_an_event_series_reports_its_last_observation_and_count() -> None:
    obj = core_event(
        eventTime=micro_ago(hours=1),
        series={"count": 12, "lastObservedTime": micro_ago(seconds=5)},
        reportingComponent="kubelet",
        reportingInstance="node-1",
    )
    row = cells(events.CORE_EVENT, obj)
    assert [row[0], row[5], row[7], row[8]] == ["5s", "kubelet, node-1", "60m", 12]


def test_an_event_without_any_time_is_unknown() -> None:
    row = cells(events.CORE_EVENT, core_event())
    assert [row[0], row[7]] == ["<unknown>", "<unknown>"]


def test_the_events_api_shape_reads_its_own_field_names() -> None:
    obj = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": "web-0.17c1", "namespace": "default"},
        "eventTime": None,
        "regarding": {"kind": "Pod", "name": "web-0", "fieldPath": "spec.containers{nginx}"},
        "reason": "BackOff",
        "note": "  Back-off restarting failed container  ",
        "type": "Warning",
        "reportingController": "kubelet",
        "reportingInstance": "node-1",
        "deprecatedFirstTimestamp": ago(hours=3),
        "deprecatedLastTimestamp": ago(minutes=1),
        "deprecatedCount": 37,
        "deprecatedSource": {"component": "kubelet", "host": "node-1"},
    }
    assert cells(events.EVENTS_API_EVENT, obj) == [
        "60s",
        "Warning",
        "BackOff",
        "pod/web-0",
        "spec.containers{nginx}",
        "kubelet, node-1",
        "Back-off restarting failed container",
        "3h",
        37,
        "web-0.17c1",
    ]


@pytest.mark.parametrize(("group", "columns"), [("", events.CORE_EVENT), ("events.k8s.io", events.EVENTS_API_EVENT)])
def test_events_are_registered_for_both_groups(group: str, columns: tuple[Any, ...]) -> None:
    assert columns_for(group, "Event") is columns
