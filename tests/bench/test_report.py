"""Rendering of the report: Markdown tables, ratios and the target verdicts."""

import math

import pytest

from bench.report import (
    Section,
    markdown_table,
    millis,
    ratio,
    ratios_section,
    render_section,
    size,
    targets_section,
)


def test_a_table_has_a_header_a_rule_and_one_line_per_row() -> None:
    table = markdown_table(("a", "b"), [("1", "2"), ("3", "4")])
    assert table.splitlines() == ["| a | b |", "|---|---|", "| 1 | 2 |", "| 3 | 4 |"]


def test_a_pipe_in_a_cell_cannot_split_the_row() -> None:
    assert markdown_table(("x",), [("a|b",)]).splitlines()[2] == "| a\\|b |"


def test_a_row_of_the_wrong_width_is_refused() -> None:
    section = Section("t", ("a", "b"))
    with pytest.raises(ValueError, match="1 cells for 2 columns"):
        section.add("only one")


def test_a_section_renders_its_title_table_and_notes() -> None:
    section = Section("Lists", ("scenario",), rows=[("json",)], notes=["sizes as sent"])
    assert render_section(section).splitlines() == [
        "### Lists",
        "",
        "| scenario |",
        "|---|",
        "| json |",
        "",
        "- sizes as sent",
    ]


def test_units_are_chosen_by_magnitude() -> None:
    assert millis(0.0004) == "0.40 ms"
    assert millis(0.25) == "250 ms"
    assert millis(2.5) == "2.50 s"
    assert size(3 * 1024) == "3.0 KB"
    assert size(80 * (1 << 20)) == "80.0 MB"
    assert millis(math.nan) == "n/a"


def test_a_ratio_with_a_missing_side_is_nan_and_reads_n_a() -> None:
    assert math.isnan(ratio({"create/32": 900.0}, "create/32", "etcd put/32"))
    rows = dict(ratios_section({"create/32": 900.0}).rows)
    assert rows["our create rate / etcd put rate (32 clients)"] == "n/a"


def test_targets_are_judged_and_named_with_the_run_counts() -> None:
    facts = {"get/32": 3500.0, "create/32": 700.0, "list objects": 2000.0, "list cm cache json": 0.1}
    rows = {row[0]: row for row in targets_section(facts).rows}
    assert rows["GET at 32 clients"][2:] == ("3,500/s", "yes")
    assert rows["create at 32 clients"][2:] == ("700/s", "**no**")
    assert rows["list of 2,000 ConfigMaps from cache, JSON (p50)"][2:] == ("100 ms", "yes")
    assert rows["GET vs HTTP ceiling"][2:] == ("n/a", "n/a")


def test_a_fast_watch_that_lost_events_fails_its_target() -> None:
    facts = {"watch p99": 0.010, "watch lost": 3.0, "watchers": 1000.0}
    row = next(row for row in targets_section(facts).rows if "watchers" in row[0])
    assert row == ("1,000 watchers: delivery p99, 0 lost", "< 100 ms", "events lost", "**no**")
