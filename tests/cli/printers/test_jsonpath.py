"""kubectl's JSONPath dialect: cases from client-go's jsonpath tests and from kubectl itself."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from svc.cli.printers.errors import TemplateError
from svc.cli.printers.jsonpath import parse_jsonpath

NODES = json.loads("""{
  "kind": "List",
  "items": [
    {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
     "status": {"capacity": {"cpu": "4"}, "ready": true,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
    {"kind": "None", "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
     "status": {"capacity": {"cpu": "8"}, "ready": false,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                              {"type": "another", "address": "127.0.0.3"}]}}
  ],
  "users": [{"name": "myself", "user": {}}, {"name": "e2e", "user": {"username": "admin", "password": "secret"}}]
}""")

CONTAINERS = {"spec": {"containers": [{"name": f"fake{i}", "image": "busybox"} for i in range(6)]}}

PODS = {
    "items": [
        {"metadata": {"name": "pod1"}, "spec": {"containers": [
            {"name": "foo", "another": [{"name": "value1"}, {"name": "value2"}]},
            {"name": "bar", "another": [{"name": "value1"}, {"name": "value2"}]}]}},
        {"metadata": {"name": "pod2"}, "spec": {"containers": [
            {"name": "baz", "another": [{"name": "value1"}, {"name": "value2"}]}]}},
    ]
}  # fmt: skip

ANNOTATED = {
    "items": [
        {"metadata": {"name": "pod1", "annotations": {"color": "blue"}}},
        {"metadata": {"name": "pod2"}},
        {"metadata": {"name": "pod3", "annotations": {"color": "green"}}},
        {"metadata": {"name": "pod4", "annotations": {"color": "blue"}}},
    ]
}

TYPES = {
    "bools": [True, False, True, False],
    "floats": [1.0, 2.2, 3.3, 4.0],
    "interfaces": [True, "one", 1, 1.1],
    "maps": [{"name": "one", "value": 1}, {"name": "two", "value": 2.02}],
    "points": [
        {"id": "i1", "x": 4},
        {"id": "i2", "x": -2, "z": 1},
        {"id": "i5", "x": 0, "z": 1},
        {"id": "i7", "x": None},
    ],
}


def run(template: str, data: Any, *, allow: bool = False) -> str:
    return parse_jsonpath(template).execute(data, allow_missing_keys=allow)


@pytest.mark.parametrize(
    ("template", "data", "expected"),
    [
        ("hello jsonpath", None, "hello jsonpath"),
        ("{range .items[*]}{.metadata.name}, {end}{.kind}", NODES, "127.0.0.1, 127.0.0.2, List"),
        ('{range .items[*]}{.metadata.name}{"\\t"}{end}', NODES, "127.0.0.1\t127.0.0.2\t"),
        ("{.items[*].status.addresses[*].address}", NODES, "127.0.0.1 127.0.0.2 127.0.0.3"),
        ("{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", NODES,
         "127.0.0.1, 127.0.0.2, 127.0.0.3, "),
        ("{.items[*]['metadata.name', 'status.capacity']}", NODES, '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'),
        ("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}", NODES,
         '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] '),
        ('{.users[?(@.name=="e2e")].user.password}', NODES, "secret"),
        ("{.items[0].metadata.labels.kubernetes\\.io/hostname}", NODES, "127.0.0.1"),
        ('{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', NODES, "None"),
        ("{.items[?(@..ready==true)].metadata.name}", NODES, "127.0.0.1"),
        ("{$.kind}", NODES, "List"),
        ("{..}", [1, 2, 3], "[1,2,3]"),
        ("{[?(@<5)]}", [2, 6, 3, 7], "2 3"),
        ('{"{"}', None, "{"),
        ("{[1,3,4]}", [0, 1, 2, 3, 4], "1 3 4"),
        ("{ .bools[-1] }", TYPES, "false"),
        ("{ .bools[:4:2] }", TYPES, "true true"),
        ("{ .floats }", TYPES, "[1,2.2,3.3,4]"),
        ("{ .floats[0:2] }", TYPES, "1 2.2"),
        ("{ .interfaces }", TYPES, '[true,"one",1,1.1]'),
        ("{ .interfaces[:4:2] }", TYPES, "true 1"),
        ("{ .maps[1::2] }", TYPES, '{"name":"two","value":2.02}'),
        ("{.points[?(@.z)].id}", TYPES, "i2 i5"),
        ("{.points[0]['id']}", TYPES, "i1"),
        ("{.points[-1]['x']}", TYPES, "null"),
        ("{.spec.containers[0:0].name}", CONTAINERS, ""),
        ("{.spec.containers[0:-1].name}", CONTAINERS, "fake0 fake1 fake2 fake3 fake4"),
        ("{.spec.containers[-2:].name}", CONTAINERS, "fake4 fake5"),
        ("{.spec.containers[5:5].name}", CONTAINERS, ""),
        ("{.spec.containers[1:4:2].name}", CONTAINERS, "fake1 fake3"),
        ("{.spec.containers[0:6:5].name}", CONTAINERS, "fake0 fake5"),
        ("{range .items[*]}{.metadata.name}{':'}{range @.spec.containers[*]}{.name}{','}{end}{'+'}{end}", PODS,
         "pod1:foo,bar,+pod2:baz,+"),
        ("{range .items[*]}{.metadata.name}{'~'}{range @.spec.containers[*]}{.name}{':'}"
         "{range @.another[*]}{.name}{','}{end}{'+'}{end}{'#'}{end}", PODS,
         "pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#"),
        ('{range .items[*]}{.metadata.name}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\t"}'
         '{range @.spec.containers[*]}{.name}{" "}{end}{"\\n"}{end}', PODS,
         "pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n"),
    ],
)  # fmt: skip
def test_upstream_cases(template: str, data: Any, expected: str) -> None:
    assert run(template, data) == expected


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (".metadata.name", ".metadata.name"),
        ("{.spec.f} {.spec.big} {.spec.bigf} {.spec.small} {.spec.n}", "1.5 1000000 1e+06 1e-07 null"),
        ("{.spec.s.*}", "120 121"),
        ("{.spec.one..}", '{"k":"v"} v'),
        ("{.spec.html}", "x<y&z"),
        ("{.spec.one}{.spec.htmlmap}", '{"k":"v"}{"h":"x\\u003cy\\u0026z"}'),
        ("{.spec.items[?(@.v > 1)].name}", "b c"),
        ("{.spec.items[?(@.v != 1)].name}", "b c"),
        ("{.spec.items[?(@.v <= 2)].name}", "a b"),
        ("{.spec.floats[?(@.f == 3.5)].f}", "3.5"),
    ],
)  # fmt: skip
def test_kubectl_observed(template: str, expected: str) -> None:
    data = {
        "kind": "Thing",
        "spec": {
            "f": 1.5, "big": 1000000, "bigf": 1000000.0, "small": 1e-7, "n": None, "s": "xy", "one": {"k": "v"},
            "html": "x<y&z", "htmlmap": {"h": "x<y&z"},
            "items": [{"name": "a", "v": 1}, {"name": "b", "v": 2}, {"name": "c", "v": 3}], "floats": [{"f": 3.5}],
        },
    }  # fmt: skip
    assert run(template, data, allow=True) == expected


def test_range_without_end_runs_the_rest_again_on_the_object() -> None:
    data = {"kind": "Thing", "one": {"k": "v"}}
    assert run("{range .one.*}{@}{.kind}", data, allow=True) == 'v{"kind":"Thing","one":{"k":"v"}}Thing'


def test_missing_key_allowed_prints_nothing() -> None:
    assert run("before-{.hello}after", {"a": 1}, allow=True) == "before-after"


def test_missing_key_not_allowed_fails_with_kubectl_text() -> None:
    with pytest.raises(TemplateError) as caught:
        run("{.missing}", {"apiVersion": "v1", "data": {"a": "b"}, "metadata": {"creationTimestamp": None}})
    assert str(caught.value) == (
        'error executing jsonpath "{.missing}": Error executing template: missing is not found. '
        "Printing more information for debugging the template:\n"
        "\ttemplate was:\n\t\t{.missing}\n"
        "\tobject given to jsonpath engine was:\n"
        '\t\tmap[string]interface {}{"apiVersion":"v1", "data":map[string]interface {}{"a":"b"}, '
        '"metadata":map[string]interface {}{"creationTimestamp":interface {}(nil)}}\n\n\n'
    )


def test_filter_tolerates_missing_keys_only_when_allowed() -> None:
    template = '{.items[?(@.metadata.annotations.color=="blue")].metadata.name}'
    assert run(template, ANNOTATED, allow=True) == "pod1 pod4"
    with pytest.raises(TemplateError, match="annotations is not found"):
        run(template, ANNOTATED)


def test_empty_range_still_evaluates_its_body() -> None:
    template = "{range .items[*]}{.metadata.name}{end}"
    assert run(template, {"items": []}, allow=True) == ""
    with pytest.raises(TemplateError, match="metadata is not found"):
        run(template, {"items": []})


@pytest.mark.parametrize(
    ("template", "data", "message"),
    [
        ("{hello}", {}, "unrecognized identifier hello"),
        ("{.Labels[0]}", {"Labels": {"a": 1}}, "map[string]interface {} is not array or slice"),
        ("{.Book[?(@.Price<>10)]}", {"Book": [{"Price": 1}]}, "unrecognized filter operator <>"),
        ("{range .Labels.*}{@}{end}{end}", {"Labels": {"a": 1}}, "not in range, nothing to end"),
        ("{.c[-5].name}", {"c": [1, 2, 3, 4]}, "array index out of bounds: index -1, length 4"),
        ("{.c[3:1]}", {"c": [1, 2, 3, 4]}, "starting index 3 is greater than ending index 1"),
        ("{.c[0:4:0]}", {"c": [1, 2, 3, 4]}, "step must be > 0"),
        ("{.s[?(@.x)]}", {"s": "xy"}, "xy is not array or slice and cannot be filtered"),
        ('{.c[?(@.v == "1")]}', {"c": [{"v": 1}]}, "incompatible types for comparison"),
        ("{.c[?(@.v > 1.0)]}", {"c": [{"v": 1}]}, "incompatible types for comparison"),
        ("{.c[?(@.v < true)]}", {"c": [{"v": True}]}, "invalid type for comparison"),
    ],
)
def test_execution_errors(template: str, data: Any, message: str) -> None:
    with pytest.raises(TemplateError, match=re.escape(f"Error executing template: {message}. Printing")):
        run(template, data)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{.metadata.name", "unclosed action"),
        ("{.a[x]}", "invalid array index x"),
        ("{..........name}", "invalid multiple recursive descent"),
        ('{"abc}', "unterminated quoted string"),
        ("{.a[0}", "unterminated array"),
        ("{.a[?(@.x}", "unterminated filter"),
        ("{#}", "unrecognized character in action: U+0023 '#'"),
        ("{.a[1:x]}", "invalid array index 1:x"),
    ],
)
def test_parse_errors(template: str, message: str) -> None:
    with pytest.raises(TemplateError) as caught:
        parse_jsonpath(template)
    assert str(caught.value) == f"error parsing jsonpath {template}, {message}"


def test_quoted_literals_unescape() -> None:
    assert run("{'\\t'}{\"a\\\"b\"}{'\\n'}", {}) == '\ta"b\n'


def test_as_json_prints_one_indented_array_per_action() -> None:
    path = parse_jsonpath("{.metadata.name}{.spec.ints}x{.nope}")
    data = {"metadata": {"name": "t1"}, "spec": {"ints": [1, 2]}}
    assert path.execute_as_json(data, allow_missing_keys=True) == (
        '[\n    "t1"\n]\n[\n    [\n        1,\n        2\n    ]\n]\n[\n    "x"\n]\n[]\n'
    )
