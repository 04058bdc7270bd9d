"""Checking rules against a CRD schema: upstream's errors, with cel-go's locations, at write time."""

from __future__ import annotations

import pytest

from svc.machinery.cel.checker import CheckError, check, check_message_expression, check_rule
from svc.machinery.cel.schema_types import schema_type
from svc.machinery.cel.signatures import NAMED_FORMAT
from svc.machinery.cel.types import BOOL, BYTES, DOUBLE, DYN, INT, STRING, TIMESTAMP, UINT, list_of, optional_of

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "name": {"type": "string"},
                "start": {"type": "string", "format": "date-time"},
                "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "size": {"x-kubernetes-int-or-string": True},
                "x-y": {"type": "integer"},
            },
        }
    },
}
SELF = {"self": schema_type(SCHEMA)}


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("self.spec.replicas", INT),
        ("self.spec.start", TIMESTAMP),
        ("self.spec.size", DYN),
        ("self.spec.x__dash__y", INT),
        ("self.spec.ports.all(p, p.port > 0)", BOOL),
        ("self.spec.labels['app'] == 'web'", BOOL),
    ],
)
def test_well_typed_expressions_have_their_schema_types(rule: str, expected: object) -> None:
    assert check(rule, SELF) == expected


def test_an_undefined_field_is_reported_where_it_is_selected() -> None:
    with pytest.raises(CheckError) as caught:
        check("self.spec.foo == 1", SELF)
    assert str(caught.value) == "ERROR: <input>:1:10: undefined field 'foo'\n | self.spec.foo == 1\n | .........^"


def test_a_field_of_a_list_element_is_checked_inside_the_macro() -> None:
    with pytest.raises(CheckError, match="<input>:1:25: undefined field 'nope'"):
        check("self.spec.ports.all(p, p.nope > 0)", SELF)


def test_an_operator_on_mismatched_types_has_no_overload() -> None:
    with pytest.raises(CheckError, match=r"found no matching overload for '_\+_' applied to '\(int, string\)'"):
        check("self.spec.replicas + self.spec.name > 0", SELF)


def test_a_string_function_on_an_int_has_no_overload() -> None:
    with pytest.raises(CheckError, match=r"found no matching overload for 'startsWith' applied to 'int.\(string\)'"):
        check("self.spec.replicas.startsWith('a')", SELF)


def test_a_comprehension_over_a_scalar_is_refused() -> None:
    with pytest.raises(CheckError, match="expression of type 'int' cannot be range of a comprehension"):
        check("self.spec.replicas.all(x, true)", SELF)


def test_int_or_string_fields_are_checked_at_evaluation() -> None:
    assert check("self.spec.size == 'x' || self.spec.size == 1", SELF) == BOOL


def test_a_rule_must_evaluate_to_a_bool() -> None:
    with pytest.raises(CheckError, match=r"^cel expression must evaluate to a bool$"):
        check_rule("self.spec.replicas", SELF)


def test_a_rule_of_dynamic_type_is_refused_as_upstream_refuses_it() -> None:
    with pytest.raises(CheckError, match=r"^cel expression must evaluate to a bool$"):
        check_rule("self.spec.size", SELF)


@pytest.mark.parametrize(
    "rule",
    [
        "self.spec.replicas > 1 ? true : has(self.spec.name)",
        "self.spec.name.matches('^[a-z]+$') && isURL(self.spec.name)",
        "ip.isCanonical(self.spec.name)",
        "self.?spec.?name.hasValue()",
    ],
)
def test_boolean_rules_pass(rule: str) -> None:
    assert check_rule(rule, SELF).result == BOOL


def test_a_message_expression_must_be_a_string() -> None:
    assert check_message_expression("'replicas: ' + string(self.spec.replicas)", SELF).result == STRING
    with pytest.raises(CheckError, match=r"^messageExpression must evaluate to a string$"):
        check_message_expression("self.spec.replicas", SELF)


def test_a_string_function_with_a_non_string_argument_has_no_overload() -> None:
    with pytest.raises(CheckError, match=r"found no matching overload for 'startsWith' applied to 'string.\(int\)'"):
        check("self.spec.name.startsWith(1)", SELF)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        # upstream's apiextensions validation tests
        ("['a', 'b'].sum() == 'c'", "found no matching overload for 'sum' applied to 'list(string).()'"),
        ("[[1], [2]].min() == [1]", "found no matching overload for 'min' applied to 'list(list(int)).()'"),
        (
            "[{'a': 1}, {'b': 2}].max() == {'b': 2}",
            "found no matching overload for 'max' applied to 'list(map(string, int)).()'",
        ),
        ("url(1).getHost() == ''", "found no matching overload for 'url' applied to '(int)'"),
        ("'a'.charAt('x') == ''", "found no matching overload for 'charAt' applied to 'string.(string)'"),
        (
            "duration('1s').getFullYear() == 1",
            "found no matching overload for 'getFullYear' applied to 'google.protobuf.Duration.()'",
        ),
        ("math.isInf(1) == true", "found no matching overload for 'math.isInf' applied to '(int)'"),
        ("math.abs('a') == 1", "found no matching overload for 'math.abs' applied to '(string)'"),
        ("math.greatest(self.spec.name) == 1", "found no matching overload for 'math.@max' applied to '(string)'"),
        ("math.bitAnd(1, 2u) == 1", "found no matching overload for 'math.bitAnd' applied to '(int, uint)'"),
        (
            "sets.contains([1], ['a'])",
            "found no matching overload for 'sets.contains' applied to '(list(int), list(string))'",
        ),
        ("base64.encode('a') == ''", "found no matching overload for 'base64.encode' applied to '(string)'"),
        (
            "format.dns1123Label().validate(1).hasValue()",
            "found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'",
        ),
        ("self.spec.name.hasValue()", "found no matching overload for 'hasValue' applied to 'string.()'"),
        ("[1, 'a'].size() == 2", "expected type 'int' but found 'string'"),
        ("duration('1x') > duration('1s')", "invalid duration argument"),
        ("timestamp('yesterday') > timestamp(0)", "invalid timestamp argument"),
    ],
)
def test_calls_are_checked_against_their_overloads(expression: str, message: str) -> None:
    with pytest.raises(CheckError) as caught:
        check(expression, SELF)
    assert f": {message}\n" in str(caught.value)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("[1, 2].sum()", INT),
        ("self.spec.name.split(',')", list_of(STRING)),
        ("url(self.spec.name).getHost()", STRING),
        ("quantity('1Gi').add(1).asInteger()", INT),
        ("cidr('10.0.0.0/8').ip().family()", INT),
        ("self.spec.start.getHours()", INT),
        ("math.greatest(1, 2)", INT),
        ("math.least([1.0, 2.0])", DOUBLE),
        ("math.greatest(1, 2.0)", DYN),
        ("math.abs(1u)", UINT),
        ("math.bitShiftLeft(1u, 2)", UINT),
        ("math.ceil(1.5)", DOUBLE),
        ("sets.intersects([1], [self.spec.replicas])", BOOL),
        ("base64.decode('YQ==')", BYTES),
        ("format.named('dns1123Label')", optional_of(NAMED_FORMAT)),
        ("format.dns1123Label().validate('a')", optional_of(list_of(STRING))),
        ("optional.of(self.spec.replicas)", optional_of(INT)),
        ("optional.none().hasValue()", BOOL),
        ("optional.of(1).or(optional.of(2)).value()", INT),
    ],
)
def test_known_functions_have_their_result_types(expression: str, expected: object) -> None:
    assert check(expression, SELF) == expected
