"""The shared CEL environment: declared variables, the program cache, errors and the cost budget."""

from __future__ import annotations

import pytest

from svc.machinery.cel import COST_EXCEEDED, CelError, CompileError, CostExceeded, Environment, environment

WIDGET = {
    "metadata": {"name": "w1", "labels": {"app": "web"}},
    "spec": {"replicas": 3, "maxReplicas": 5, "ports": [{"port": 80}, {"port": 443}]},
}


def test_compiling_the_same_expression_twice_reuses_the_program() -> None:
    env = Environment(["self"])
    assert env.compile("self.spec.replicas > 0") is env.compile("self.spec.replicas > 0")


def test_environments_with_the_same_variables_share_their_cache() -> None:
    first = environment(frozenset({"self", "oldSelf"})).compile("self == oldSelf")
    assert environment(frozenset({"oldSelf", "self"})).compile("self == oldSelf") is first


def test_a_rule_reads_self_from_the_objects_own_dicts() -> None:
    program = Environment(["self"]).compile("self.spec.ports.all(p, p.port < 1024) && self.spec.replicas <= 5")
    assert program.evaluate({"self": WIDGET}) is True


def test_transition_rule_compares_self_with_old_self() -> None:
    program = environment(frozenset({"self", "oldSelf"})).compile("self.spec.replicas >= oldSelf.spec.replicas")
    assert program.evaluate({"self": WIDGET, "oldSelf": {"spec": {"replicas": 4}}}) is False


def test_optional_field_selection_on_a_missing_field_falls_back() -> None:
    program = Environment(["self"]).compile("self.?spec.?paused.orValue(false) == false")
    assert program.evaluate({"self": WIDGET}) is True


def test_undeclared_variable_is_a_compile_error_with_upstreams_text() -> None:
    with pytest.raises(CompileError) as caught:
        Environment(["self"]).compile("self.x + object.spec")
    assert str(caught.value) == (
        "ERROR: <input>:1:10: undeclared reference to 'object' (in container '')\n"
        " | self.x + object.spec\n"
        " | .........^"
    )


def test_a_syntax_error_is_located_as_cel_go_locates_it() -> None:
    with pytest.raises(CelError) as caught:
        Environment(["self"]).compile("self.x +")
    assert str(caught.value).startswith("ERROR: <input>:1:9: Syntax error: ")


def test_missing_field_is_an_evaluation_error_naming_the_key() -> None:
    with pytest.raises(CelError, match=r"^no such key: paused$"):
        Environment(["self"]).compile("self.spec.paused").evaluate({"self": WIDGET})


def test_logical_or_absorbs_an_error_when_the_other_side_is_true() -> None:
    assert Environment(["self"]).compile("self.spec.paused || true").evaluate({"self": WIDGET}) is True


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1 / 0", "division by zero"),
        ("1 % 0", "modulus by zero"),
        ("9223372036854775807 + 1", "integer overflow"),
        ("0u - 1u", "unsigned integer overflow"),
        ("'a' + 1", "no such overload"),
    ],
)
def test_evaluation_errors_carry_cel_gos_messages(expression: str, message: str) -> None:
    with pytest.raises(CelError, match=f"^{message}"):
        Environment().compile(expression).evaluate({})


def test_exceeding_the_runtime_cost_limit_cancels_with_upstreams_error() -> None:
    program = Environment(["self"]).compile("self.all(x, self.all(y, x + y >= 0))")
    with pytest.raises(CostExceeded) as caught:
        program.evaluate({"self": list(range(100))}, cost_limit=1000)
    assert str(caught.value) == COST_EXCEEDED == "operation cancelled: actual cost limit exceeded"


def test_the_same_program_within_its_budget_reports_the_cost_it_took() -> None:
    program = Environment(["self"]).compile("self.all(x, x >= 0)")
    result, cost = program.evaluate_with_cost({"self": list(range(100))}, cost_limit=1000)
    assert result is True and 100 <= cost <= 1000


def test_string_functions_are_charged_by_size() -> None:
    program = Environment(["self"]).compile("self.contains('z')")
    _, small = program.evaluate_with_cost({"self": "a"})
    _, large = program.evaluate_with_cost({"self": "a" * 1000})
    assert large > small
