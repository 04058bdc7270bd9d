"""APF's per-request metrics: the dispatched counter and the zero-wait bucket are counted in plain
integers and reach the prometheus series when the registry is collected (a scrape)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from svc.apiserver.flowcontrol.metrics import FlowControlMetrics

LABELS = {"flow_schema": "s", "priority_level": "l"}


def _wait_sample(registry: CollectorRegistry, suffix: str, **extra: str) -> float | None:
    name = f"apiserver_flowcontrol_request_wait_duration_seconds_{suffix}"
    return registry.get_sample_value(name, {**LABELS, "execute": "true", **extra})


def test_dispatches_counted_in_integers_show_in_a_scrape() -> None:
    registry = CollectorRegistry()
    series = FlowControlMetrics(registry).flow("s", "l")
    for _ in range(3):
        series.ran(0.0)
    series.ran(0.3)
    assert registry.get_sample_value("apiserver_flowcontrol_dispatched_requests_total", LABELS) == 4
    assert _wait_sample(registry, "bucket", le="0.0") == 3
    assert _wait_sample(registry, "bucket", le="0.5") == 4
    assert _wait_sample(registry, "count") == 4
    assert _wait_sample(registry, "sum") == 0.3


def test_a_second_scrape_adds_only_what_is_new() -> None:
    registry = CollectorRegistry()
    series = FlowControlMetrics(registry).flow("s", "l")
    series.ran(0.0)
    assert registry.get_sample_value("apiserver_flowcontrol_dispatched_requests_total", LABELS) == 1
    assert registry.get_sample_value("apiserver_flowcontrol_dispatched_requests_total", LABELS) == 1
    series.ran(0.0)
    assert registry.get_sample_value("apiserver_flowcontrol_dispatched_requests_total", LABELS) == 2
    assert _wait_sample(registry, "bucket", le="0.0") == 2
