from __future__ import annotations

import orjson

from bench import cel


def test_the_cel_scenario_evaluates_every_rule_and_reports_a_time_per_object() -> None:
    section, facts = cel.run(count=20, repeats=1)
    assert len(section.rows) == 4
    assert facts["cel rules per object"] > 0


def test_the_cel_scenario_times_custom_resource_validation() -> None:
    _, facts = cel.run(count=20, repeats=1)
    assert all(facts[key] > 0 for key in ("crd validate", "crd create path", "crd validate update"))


def test_the_bench_object_is_about_two_kilobytes() -> None:
    assert 1900 <= len(orjson.dumps(cel.widget(0))) <= 2200
