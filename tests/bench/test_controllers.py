"""The controllers scenario's work-queue table and its target: pure functions of the scraped counters."""

import math

from bench.__main__ import parse_arguments
from bench.controllers import queue_section
from bench.report import TARGETS, targets_section

SA_TARGET = next(target for target in TARGETS if "default ServiceAccount" in target.name)


def test_the_scenario_can_be_chosen_on_its_own() -> None:
    assert parse_arguments(["--only", "controllers"]).only == ["controllers"]


def test_queues_are_ranked_by_adds_under_load_with_per_second_rates() -> None:
    before = {"a": 0.0, "b": 0.0}
    populated = {"a": 100.0, "b": 10.0}
    loaded = {"a": 110.0, "b": 210.0}
    section = queue_section(before, populated, loaded, (10.0, 2.0))
    assert section.rows == [("b", "1.0/s", "100/s", "210"), ("a", "10.0/s", "5.0/s", "110")]


def test_queues_that_never_had_an_add_are_left_out() -> None:
    section = queue_section({}, {"idle": 0.0, "busy": 1.0}, {"idle": 0.0, "busy": 3.0}, (1.0, 1.0))
    assert [row[0] for row in section.rows] == ["busy"]


def test_a_missing_default_account_fails_the_target_whatever_the_p99() -> None:
    row = targets_section({"controllers sa p99": math.inf}, [SA_TARGET]).rows[0]
    assert row[2:] == ("accounts missing", "**no**")


def test_a_p99_under_200_ms_meets_the_target() -> None:
    row = targets_section({"controllers sa p99": 0.150}, [SA_TARGET]).rows[0]
    assert row[2:] == ("150 ms", "yes")
