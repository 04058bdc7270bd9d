"""The rule shapes of the validation engine, on small tables of their own."""

from __future__ import annotations

from svc.api.validation.engine import At, Each, Format, Immutable, KindRules, OneOf, Range, Required, go_struct, run
from svc.machinery.field_errors import not_found
from svc.machinery.validation import is_dns1123_label


def _texts(errors) -> list[str]:
    return [str(error) for error in errors]


def test_required_treats_empty_values_as_unset() -> None:
    table = (Required("a"), Required("b"), Required("c"))
    assert _texts(run(table, {"a": "", "b": [], "c": 0}, "spec")) == [
        "spec.a: Required value",
        "spec.b: Required value",
    ]


def test_one_of_lists_the_supported_values_in_table_order() -> None:
    errors = run((OneOf("mode", ("Fast", "Slow")),), {"mode": "Medium"}, "spec")
    assert _texts(errors) == ['spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"']


def test_optional_one_of_skips_an_absent_value() -> None:
    assert run((OneOf("mode", ("Fast",), optional=True),), {}, "spec") == []


def test_range_is_non_negative_by_default_and_skips_absent_values() -> None:
    table = (Range("replicas"), Range("missing"))
    assert _texts(run(table, {"replicas": -1}, "spec")) == [
        "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    ]


def test_format_reports_each_message_of_its_check() -> None:
    errors = run((Format("name", is_dns1123_label, required=True),), {"name": "a.b"}, "")
    assert _texts(errors) == ['name: Invalid value: "a.b": must not contain dots']


def test_each_runs_the_item_table_and_reports_repeated_keys() -> None:
    table = (Each("ports", (Range("port", 1, 65535, "must be a port"),), unique="name"),)
    node = {"ports": [{"name": "a", "port": 0}, {"name": "a", "port": 80}]}
    assert _texts(run(table, node, "spec")) == [
        "spec.ports[0].port: Invalid value: 0: must be a port",
        'spec.ports[1].name: Duplicate value: "a"',
    ]


def test_at_validates_an_absent_struct_as_empty_unless_optional() -> None:
    table = (At("template", (Required("image"),)), At("probe", (Required("port"),), optional=True))
    assert _texts(run(table, {}, "spec")) == ["spec.template.image: Required value"]


def test_immutable_compares_with_the_old_object() -> None:
    rules = KindRules(create=(), update=(Immutable("spec.type"),))
    errors = rules.validate_update({"spec": {"type": "b"}}, {"spec": {"type": "a"}})
    assert _texts(errors) == ['spec.type: Invalid value: "b": field is immutable']


def test_not_found_shows_the_value() -> None:
    assert str(not_found("spec.volumeMounts[0].name", "data")) == 'spec.volumeMounts[0].name: Not found: "data"'


def test_go_struct_prints_go_field_names_in_declaration_order() -> None:
    shown = go_struct({"rollingUpdate": None, "type": "X", "seLinux": 1}, ("type", "rollingUpdate", "seLinux=SELinux"))
    assert shown.text == '{"Type":"X","RollingUpdate":null,"SELinux":1}'
