"""CRD validation rules end to end: compiled against the schema once, evaluated per object."""

from __future__ import annotations

import pytest

from svc.machinery.cel import CelError
from svc.machinery.cel.rules import compile_rule

SCHEMA = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer"},
        "maxReplicas": {"type": "integer"},
        "startTime": {"type": "string", "format": "date-time"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def test_a_rule_is_evaluated_on_the_objects_value() -> None:
    compiled = compile_rule(SCHEMA, "self.replicas <= self.maxReplicas")
    assert compiled.evaluate({"replicas": 3, "maxReplicas": 5}) is True
    assert compiled.evaluate({"replicas": 6, "maxReplicas": 5}) is False


def test_formatted_fields_reach_the_rule_as_timestamps() -> None:
    compiled = compile_rule(SCHEMA, "self.startTime > timestamp('2024-01-01T00:00:00Z')")
    assert compiled.evaluate({"startTime": "2025-06-01T00:00:00Z"}) is True


def test_a_rule_reading_old_self_is_a_transition_rule() -> None:
    compiled = compile_rule(SCHEMA, "self.replicas >= oldSelf.replicas")
    assert compiled.transition is True
    assert compiled.evaluate({"replicas": 2}, {"replicas": 3}) is False
    assert compile_rule(SCHEMA, "self.replicas > 0").transition is False


def test_a_message_expression_renders_the_message() -> None:
    compiled = compile_rule(SCHEMA, "self.replicas < 10", message_expression="'too many: ' + string(self.replicas)")
    assert compiled.message({"replicas": 12}) == "too many: 12"


def test_an_undefined_field_fails_compilation_with_upstreams_text() -> None:
    with pytest.raises(CelError) as caught:
        compile_rule(SCHEMA, "self.replica > 0")
    assert str(caught.value).startswith("compilation failed: ERROR: <input>:1:5: undefined field 'replica'")


def test_an_unbounded_nested_loop_is_refused_for_its_estimated_cost() -> None:
    with pytest.raises(CelError, match=r"^estimated rule cost exceeds budget by factor of more than 100x"):
        compile_rule(SCHEMA, "self.tags.all(x, self.tags.all(y, x != y || x == y))")


def test_a_non_boolean_rule_is_refused() -> None:
    with pytest.raises(CelError, match=r"^cel expression must evaluate to a bool$"):
        compile_rule(SCHEMA, "self.replicas")
