"""What `/metrics` shows of a registry, after the metrics flags (upstream component-base semantics).

Upstream applies the flags when a metric registers; here the registry records everything and the
filter applies at scrape time, which gives the same text and keeps the hot path free of checks:
- a disabled metric is left out (disabling beats showing hidden metrics);
- a metric deprecated in an earlier minor version is hidden unless `--show-hidden-metrics-for-version`
  names the previous minor version; one deprecated in the current version is shown with
  `(Deprecated since X.Y.0)` in its help;
- a label value outside the allow-list of `--allow-metric-labels` is reported as `unexpected`, the
  series that become one added together.
`disabled_metrics_total`, `hidden_metrics_total` and
`cardinality_enforcement_unexpected_categorizations_total` report what the flags did (the last counts
the series categorized in this scrape, not each observation as upstream's does).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from prometheus_client.core import CounterMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.samples import Sample

from svc.apiserver.metrics_options import MetricsOptions

UNEXPECTED = "unexpected"


class Collector(Protocol):
    def collect(self) -> Iterable[Metric]: ...


def exposed_name(family: Metric, exact: frozenset[str] = frozenset()) -> str:
    """The name upstream registers: prometheus-client keeps a counter's family name without `_total`,
    which upstream's name has unless it is one of the `exact` counters."""
    if family.type == "counter" and family.name not in exact:
        return family.name + "_total"
    return family.name


class Exposition:
    """A collector over another: `generate_latest(Exposition(...))` renders the filtered text."""

    def __init__(
        self,
        source: Collector,
        options: MetricsOptions,
        *,
        current_minor: int,
        deprecated: dict[str, int] | None = None,
        exact: frozenset[str] = frozenset(),
    ) -> None:
        self._source = source
        self._options = options
        self._current_minor = current_minor
        self._exact = exact
        self._deprecated = deprecated or {}
        """metric name -> the minor version (of 1.x) it was deprecated in."""

    def _hidden(self, name: str) -> bool:
        since = self._deprecated.get(name)
        return since is not None and since < self._current_minor and not self._options.show_hidden

    def collect(self) -> Iterator[Metric]:
        disabled = self._options.disabled
        hidden = unexpected = 0
        for family in self._source.collect():
            name = exposed_name(family, self._exact)
            if name in disabled:
                continue
            if self._hidden(name):
                hidden += 1
                continue
            since = self._deprecated.get(name)
            if since is not None:
                family.documentation = _deprecated_help(family.documentation, since)
            allowed = self._options.allow_list.get(name)
            if allowed:
                family, categorized = _constrained(family, allowed)
                unexpected += categorized
            yield family
        yield _counter("disabled_metrics", "[BETA] The count of disabled metrics.", len(disabled))
        yield _counter("hidden_metrics", "[BETA] The count of hidden metrics.", hidden)
        yield _counter(
            "cardinality_enforcement_unexpected_categorizations",
            "[ALPHA] The count of unexpected categorizations during cardinality enforcement.",
            unexpected,
        )


def _constrained(family: Metric, allowed: dict[str, frozenset[str]]) -> tuple[Metric, int]:
    """The family with label values outside the allow-list made `unexpected` and the series merged."""
    merged: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    categorized = 0
    for sample in family.samples:
        labels = dict(sample.labels)
        for label, values in allowed.items():
            if label in labels and labels[label] not in values:
                labels[label] = UNEXPECTED
                categorized += 1
        key = (sample.name, tuple(labels.items()))
        merged[key] = merged.get(key, 0.0) + sample.value
    result = Metric(family.name, family.documentation, family.type, family.unit)
    result.samples = [Sample(name, dict(labels), value) for (name, labels), value in merged.items()]
    return result, categorized


def _deprecated_help(documentation: str, minor: int) -> str:
    stability, sep, rest = documentation.partition("] ")
    prefix = f"{stability}{sep}" if sep else ""
    return f"{prefix}(Deprecated since 1.{minor}.0) {rest if sep else documentation}"


def _counter(name: str, documentation: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(name, documentation, value=value)
