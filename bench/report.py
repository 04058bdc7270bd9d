"""The report: Markdown sections of measured rows, headline ratios and the targets they are read against.

Scenarios hand back `Section`s of already formatted cells plus named numbers (`Facts`); the ratios
and the target checks are computed here from those numbers only, so they stay pure and testable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bench.client import Measurement

Facts = dict[str, float]

LATENCY_HEADERS = ("scenario", "clients", "ops", "throughput", "p50", "p99", "notes")


@dataclass
class Section:
    """One Markdown table with a heading and notes under it."""

    title: str
    headers: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: str) -> None:
        if len(cells) != len(self.headers):
            raise ValueError(f"{self.title}: a row has {len(cells)} cells for {len(self.headers)} columns")
        self.rows.append(cells)


def rate(value: float | None, unit: str = "/s") -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:,.0f}{unit}" if value >= 100 else f"{value:,.1f}{unit}"


def millis(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds):
        return "n/a"
    ms = seconds * 1000
    if ms >= 1000:
        return f"{seconds:.2f} s" if ms < 10_000 else f"{seconds:.1f} s"
    return f"{ms:.0f} ms" if ms >= 100 else f"{ms:.1f} ms" if ms >= 10 else f"{ms:.2f} ms"


def size(count: float | None) -> str:
    """Bytes in binary units (KiB written KB, as the targets are)."""
    if count is None or math.isnan(count):
        return "n/a"
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(count) >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count:.0f} B"


def latency_row(scenario: str, clients: int | str, measured: Measurement, note: str = "") -> tuple[str, ...]:
    notes = "; ".join(part for part in (note, measured.cpu_note()) if part)
    return (
        scenario,
        str(clients),
        f"{measured.ops:,}",
        rate(measured.rate),
        millis(measured.p50),
        millis(measured.p99),
        notes,
    )


def not_measured(section: Section, scenario: str, reason: str) -> None:
    """A row of n/a cells with the reason in the last column."""
    section.add(scenario, *("n/a",) * (len(section.headers) - 2), reason)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub Markdown table; `|` in a cell is escaped so it cannot split the row."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(headers), "|" + "|".join("---" for _ in headers) + "|", *(line(row) for row in rows)])


def render_section(section: Section) -> str:
    parts = [f"### {section.title}", "", markdown_table(section.headers, section.rows)]
    if section.notes:
        parts += ["", *(f"- {note}" for note in section.notes)]
    return "\n".join(parts)


@dataclass(frozen=True)
class Ratio:
    name: str
    numerator: str
    denominator: str


RATIOS = (
    Ratio("our create rate / etcd put rate (32 clients)", "create/32", "etcd put/32"),
    Ratio("our create rate / etcd put rate (1 client)", "create/1", "etcd put/1"),
    Ratio("our get rate / etcd range rate (32 clients)", "get/32", "etcd range/32"),
    Ratio("our create rate on etcd / etcd put rate (32 clients)", "etcd-server create/1", "etcd put/32"),
    Ratio("our get rate on etcd (read from etcd) / our get rate on SQLite (32 clients)", "etcd-server get/1", "get/32"),
    Ratio(
        "our get rate on etcd, resourceVersion=0 (watch cache) / our get rate on SQLite (32 clients)",
        "etcd-server get_cached/1",
        "get/32",
    ),
    Ratio("create rate, 2 servers / 1 server on one etcd (32 clients)", "etcd-server create/2", "etcd-server create/1"),
    Ratio("get rate, 2 servers / 1 server on one etcd (32 clients)", "etcd-server get/2", "etcd-server get/1"),
    Ratio("our get rate / etcd range rate (1 client)", "get/1", "etcd range/1"),
    Ratio("our get rate / HTTP ceiling (32 clients)", "get/32", "http ceiling/32"),
    Ratio("our create rate / SQLite single-row commits", "create/32", "sqlite commit/1"),
    Ratio("custom resource create / ConfigMap create (32 clients)", "crd cr create/32", "crd cm create/32"),
    Ratio("custom resource get / ConfigMap get (32 clients)", "crd cr get/32", "crd cm get/32"),
    Ratio("proxied get / local get (32 clients)", "aggregator proxied get/32", "aggregator local get/32"),
)


def ratio(facts: Facts, numerator: str, denominator: str) -> float:
    """facts[numerator] / facts[denominator], NaN when either is missing or the denominator is 0."""
    top, bottom = facts.get(numerator, math.nan), facts.get(denominator, math.nan)
    if math.isnan(top) or math.isnan(bottom) or bottom == 0:
        return math.nan
    return top / bottom


def ratios_section(facts: Facts) -> Section:
    section = Section("Headline ratios", ("ratio", "value"))
    for item in RATIOS:
        value = ratio(facts, item.numerator, item.denominator)
        section.add(item.name, "n/a" if math.isnan(value) else f"{value:.2f}")
    return section


@dataclass(frozen=True)
class Target:
    """A goal read from the facts: `measure` gives the number, `met` judges it, `show` formats it."""

    name: str
    goal: str
    measure: Callable[[Facts], float]
    met: Callable[[float], bool]
    show: Callable[[float], str]


def _fact(name: str) -> Callable[[Facts], float]:
    return lambda facts: facts.get(name, math.nan)


def _ratio(numerator: str, denominator: str) -> Callable[[Facts], float]:
    return lambda facts: ratio(facts, numerator, denominator)


def _lossless_p99(facts: Facts) -> float:
    """The watch p99, or infinity when any event was lost (so a fast but lossy run fails)."""
    if facts.get("watch lost", math.nan) != 0:
        return math.inf if "watch lost" in facts else math.nan
    return facts.get("watch p99", math.nan)


def _percent(value: float) -> str:
    return f"{value:.0%}"


def _megabytes_per_second(value: float) -> str:
    return rate(value / (1 << 20), " MB/s")


TARGETS = (
    Target("GET at 32 clients", "≥ 3,000/s", _fact("get/32"), lambda v: v >= 3000, rate),
    Target("GET vs HTTP ceiling", "≥ 40%", _ratio("get/32", "http ceiling/32"), lambda v: v >= 0.40, _percent),
    Target("create at 32 clients", "≥ 800/s", _fact("create/32"), lambda v: v >= 800, rate),
    Target("create vs etcd put", "≥ 50%", _ratio("create/32", "etcd put/32"), lambda v: v >= 0.50, _percent),
    Target(
        "strategic-merge patch of a 50-container Deployment (p50)",
        "< 20 ms",
        _fact("smp p50"),
        lambda v: v < 0.020,
        millis,
    ),
    Target(
        "server-side apply of a 50-container Deployment (p50)",
        "< 20 ms",
        _fact("apply p50"),
        lambda v: v < 0.020,
        millis,
    ),
    Target(
        "strategic-merge patch of a 50-container Deployment, server CPU per request",
        "< 20 ms",
        _fact("smp server cpu"),
        lambda v: v < 0.020,
        millis,
    ),
    Target(
        "server-side apply of a 50-container Deployment, server CPU per request",
        "< 20 ms",
        _fact("apply server cpu"),
        lambda v: v < 0.020,
        millis,
    ),
    Target(
        "list of {lists} ConfigMaps from cache, JSON (p50)",
        "< 250 ms",
        _fact("list cm cache json"),
        lambda v: v < 0.250,
        millis,
    ),
    Target(
        "list of {lists} pods from cache, JSON (p50)",
        "< 250 ms",
        _fact("list pod cache json"),
        lambda v: v < 0.250,
        millis,
    ),
    Target(
        "{watchers} watchers: delivery p99, 0 lost",
        "< 100 ms",
        _lossless_p99,
        lambda v: v < 0.100,
        lambda v: "events lost" if math.isinf(v) else millis(v),
    ),
    Target(
        "RSS per stored pod / its JSON size ({stored} pods)",
        "< 2.5",
        _fact("rss per json byte"),
        lambda v: v < 2.5,
        lambda v: f"{v:.2f}",
    ),
    Target("empty server RSS", "< 80 MB", _fact("rss empty"), lambda v: v < 80 * (1 << 20), size),
    Target("cold start, empty", "< 1 s", _fact("start empty"), lambda v: v < 1.0, lambda v: f"{v:.2f} s"),
    Target("cold start with {stored} pods", "< 5 s", _fact("start full"), lambda v: v < 5.0, lambda v: f"{v:.2f} s"),
    Target(
        "encoding a list of {encoded} pods, JSON",
        "≥ 100 MB/s",
        _fact("encode json"),
        lambda v: v >= 100 * (1 << 20),
        _megabytes_per_second,
    ),
    Target(
        "encoding a list of {encoded} pods, Protobuf",
        "≥ 100 MB/s",
        _fact("encode protobuf"),
        lambda v: v >= 100 * (1 << 20),
        _megabytes_per_second,
    ),
    Target(
        "Table of {encoded} pods, rendered and encoded", "< 500 ms", _fact("encode table"), lambda v: v < 0.5, millis
    ),
    Target(
        "CEL: 5 CRD rules over a 2 KB object",
        "< 50 µs",
        _fact("cel rules per object"),
        lambda v: v < 50e-6,
        lambda v: f"{v * 1e6:.1f} µs",
    ),
    Target(
        "one matching webhook, added to a ConfigMap create p50",
        "< 2 ms",
        _fact("webhook added p50"),
        lambda v: v < 0.002,
        millis,
    ),
    Target(
        "a ValidatingAdmissionPolicy with 3 validations, added to ConfigMap create (server CPU, 32 clients)",
        "< 15%",
        _fact("vap create cost/32"),
        lambda v: v < 0.15,
        lambda v: f"{v:+.1%}",
    ),
    Target(
        "GET with a service-account token vs a client certificate (32 clients, server CPU)",
        "≥ 85%",
        _fact("authn token vs cert/32"),
        lambda v: v >= 0.85,
        _percent,
    ),
    Target(
        "APF on GET vs --enable-priority-and-fairness=false (32 clients, server CPU)",
        "< 5%",
        _fact("apf get cost/32"),
        lambda v: v < 0.05,
        lambda v: f"{v:+.1%}",
    ),
    Target(
        "victim GET p99 while a low-level flood gets 429s (APF)",
        "< 100 ms",
        _fact("apf victim p99"),
        lambda v: v < 0.100,
        millis,
    ),
    Target(
        "restore of a snapshot of {snapshot} objects (storage)",
        "< 100 ms",
        _fact("snapshot restore"),
        lambda v: v < 0.100,
        millis,
    ),
    Target(
        "custom resource create vs ConfigMap create (32 clients)",
        "≥ 80%",
        _ratio("crd cr create/32", "crd cm create/32"),
        lambda v: v >= 0.80,
        _percent,
    ),
    Target(
        "custom resource get vs ConfigMap get (32 clients)",
        "≥ 80%",
        _ratio("crd cr get/32", "crd cm get/32"),
        lambda v: v >= 0.80,
        _percent,
    ),
    Target("a CRD from create to served (slowest)", "< 1 s", _fact("crd served max"), lambda v: v < 1.0, millis),
    Target("100 CRDs at once until all served", "< 10 s", _fact("crd batch seconds"), lambda v: v < 10.0, millis),
    Target(
        "a new namespace's default ServiceAccount under 200 namespace creates/s (p99, none missing)",
        "< 200 ms",
        _fact("controllers sa p99"),
        lambda v: v < 0.200,
        lambda v: "accounts missing" if math.isinf(v) else millis(v),
    ),
    *(
        Target(
            f"{kind}'s validation, share of its create's server CPU (32 clients)",
            "< 15%",
            _fact(f"validation share {kind}/32"),
            lambda v: v < 0.15,
            lambda v: f"{v:.1%}",
        )
        for kind in ("ConfigMap", "Pod", "Deployment")
    ),
)


COUNTS = {
    "lists": "list objects",
    "watchers": "watchers",
    "stored": "stored objects",
    "encoded": "encode objects",
    "snapshot": "snapshot objects",
}


def _counts(facts: Facts) -> dict[str, str]:
    """The run's object counts for the target names ("?" when the scenario did not run)."""
    return {key: f"{facts[name]:,.0f}" if name in facts else "?" for key, name in COUNTS.items()}


def targets_section(facts: Facts, targets: Sequence[Target] = TARGETS) -> Section:
    """One row per target; a target whose scenario did not run reads n/a."""
    section = Section("Targets", ("target", "goal", "measured", "met"))
    counts = _counts(facts)
    for target in targets:
        name = target.name.format(**counts)
        value = target.measure(facts)
        if math.isnan(value):
            section.add(name, target.goal, "n/a", "n/a")
        else:
            section.add(name, target.goal, target.show(value), "yes" if target.met(value) else "**no**")
    return section


def render_report(title: str, preamble: Sequence[str], sections: Sequence[Section]) -> str:
    parts = [f"## {title}", "", *preamble, ""]
    for section in sections:
        parts += [render_section(section), ""]
    return "\n".join(parts)
