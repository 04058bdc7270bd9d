"""Deferred counts and histograms: a scrape reads what direct prometheus-client updates would give."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram

from svc.apiserver.deferred_counts import Deferred

BUCKETS = (0.005, 0.025, 0.1, 0.5, 1.0, 5.0)
amounts = st.lists(st.floats(min_value=0, max_value=20, allow_nan=False) | st.sampled_from(BUCKETS), max_size=50)


def _histograms() -> tuple[CollectorRegistry, Histogram, Deferred]:
    registry = CollectorRegistry(auto_describe=True)
    deferred = Deferred(registry)
    histogram = Histogram("seconds", "help", ["verb"], buckets=BUCKETS, registry=registry)
    return registry, histogram, deferred


@given(amounts, amounts)
def test_a_deferred_histogram_scrapes_as_direct_observations(first: list[float], second: list[float]) -> None:
    direct_registry, direct, _ = _histograms()
    deferred_registry, metric, deferred = _histograms()
    child, direct_child = deferred.histogram(metric.labels("GET")), direct.labels("GET")
    for batch in (first, second):  # two scrapes: the second adds only what came after the first
        for amount in batch:
            direct_child.observe(amount)
            child.observe(amount)
        scraped, expected = _samples(deferred_registry), _samples(direct_registry)
        assert scraped.keys() == expected.keys()
        for key, value in expected.items():
            assert math.isclose(scraped[key], value, rel_tol=1e-9, abs_tol=1e-12), key


def test_an_amount_on_a_bound_lands_in_that_bucket() -> None:
    registry, metric, deferred = _histograms()
    deferred.histogram(metric.labels("GET")).observe(0.1)
    assert registry.get_sample_value("seconds_bucket", {"verb": "GET", "le": "0.025"}) == 0
    assert registry.get_sample_value("seconds_bucket", {"verb": "GET", "le": "0.1"}) == 1
    assert registry.get_sample_value("seconds_bucket", {"verb": "GET", "le": "+Inf"}) == 1
    assert math.isclose(registry.get_sample_value("seconds_sum", {"verb": "GET"}), 0.1)


def test_a_deferred_count_adds_its_increments_at_the_scrape() -> None:
    registry = CollectorRegistry()
    deferred = Deferred(registry)
    counter = Counter("requests", "help", ["code"], registry=registry)
    child = deferred.count(counter.labels("200"))
    child.inc()
    child.inc(2)
    assert registry.get_sample_value("requests_total", {"code": "200"}) == 3
    child.inc()
    assert registry.get_sample_value("requests_total", {"code": "200"}) == 4


def _samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample but the creation times, by name and labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in registry.collect()
        for sample in family.samples
        if not sample.name.endswith("_created")
    }
