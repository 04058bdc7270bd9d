"""Go text/template as kubectl runs it; expected texts are what kubectl 1.32 prints for the same data."""

from __future__ import annotations

from typing import Any

import pytest

from svc.cli.printers.errors import TemplateError
from svc.cli.printers.gotemplate import parse_go_template
from svc.machinery.gotext import quote

DATA: dict[str, Any] = {
    "apiVersion": "example.com/v1",
    "kind": "Thing",
    "metadata": {"name": "t1", "labels": {"x": "y", "a": "b"}},
    "spec": {
        "ints": [1, 2, 3, 4], "f": 1.5, "bigf": 1000000.0, "small": 1e-7, "s": "xy", "t": True, "n": None,
        "html": "a<b", "empty": [], "one": {"k": "v"},
        "items": [
            {"name": "a", "v": 1, "ok": True, "color": "blue"},
            {"name": "b", "v": 2, "extra": "e", "ok": False},
            {"name": "c", "v": 3.5, "color": "green"},
        ],
        "nested": [{"name": "p1", "cs": [{"n": "x"}, {"n": "y"}]}, {"name": "p2", "cs": [{"n": "z"}]}],
    },
}  # fmt: skip


def run(text: str, *, allow: bool = True, data: Any = None) -> str:
    return parse_go_template(text).execute(DATA if data is None else data, allow_missing_keys=allow)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{.metadata.name}}", "t1"),
        ("{{.metadata}}", "map[labels:map[a:b x:y] name:t1]"),
        ("{{.spec.f}} {{.spec.bigf}} {{.spec.small}} {{.spec.ints}} {{.spec.t}}", "1.5 1000000 1e-07 [1 2 3 4] true"),
        ("{{.missing}}|{{.spec.n}}|{{.missing.x}}", "<no value>|<no value>|<no value>"),
        ("{{range .spec.items}}{{.name}}={{.v}};{{end}}", "a=1;b=2;c=3.5;"),
        ("{{range $i, $e := .spec.items}}{{$i}}:{{$e.name}} {{end}}", "0:a 1:b 2:c "),
        ("{{range .spec.empty}}x{{else}}empty{{end}}", "empty"),
        ("{{range .spec.items}}{{if eq .name \"b\"}}{{break}}{{end}}{{.name}}{{end}}", "a"),
        ("{{range .spec.items}}{{if eq .name \"b\"}}{{continue}}{{end}}{{.name}}{{end}}", "ac"),
        ("{{range .spec.nested}}{{.name}}:{{range .cs}}{{.n}},{{end}}+{{end}}", "p1:x,y,+p2:z,+"),
        ("{{range $k, $v := .metadata.labels}}{{$k}}={{$v}} {{end}}", "a=b x=y "),
        ("{{if .missing}}yes{{else if .spec.t}}elif{{else}}no{{end}}", "elif"),
        ("{{with .spec.one}}{{.k}}{{end}}{{with .missing}}x{{else}}none{{end}}", "vnone"),
        ("{{with .spec.one}}{{.k}}{{else with .spec.t}}t{{end}}", "v"),
        ('{{$x := .metadata.name}}{{$x}}{{$x = "changed"}}{{$x}}', "t1changed"),
        ('{{.metadata.name | printf "%q"}}', '"t1"'),
        ('{{"x" | printf "%s-%s" "y"}}', "y-x"),
        ('{{printf "%5d|%-5s|%05.1f|%v|%x" 42 "ab" 3.14159 .spec.ints "hi"}}', "   42|ab   |003.1|[1 2 3 4]|6869"),
        ('{{printf "%6.2f|%-8v|%+d|%U|%c|%08b" 3.14159 "x" 5 65 66 5}}', "  3.14|x       |+5|U+0041|B|00000101"),
        ('{{printf "%d %s" "x"}} {{printf "%d" 1 2}}', "%!d(string=x) %!s(MISSING) 1%!(EXTRA int=2)"),
        ('{{printf "%T %T %T %T %T" 1 1.5 "s" .spec.ints .spec.n}}', "int float64 string []interface {} <nil>"),
        ('{{printf "%#v" .spec.one}}', 'map[string]interface {}{"k":"v"}'),
        ("{{len .spec.items}} {{len .metadata.name}} {{.spec.items | len}}", "3 2 3"),
        ('{{index .spec.items 1}} {{index .spec.ints 0}} {{index .metadata.labels "nope"}}',
         "map[extra:e name:b ok:false v:2] 1 <no value>"),
        ("{{slice .spec.ints 1 3}} {{slice .metadata.name 0 1}}", "[2 3] t"),
        ('{{and .spec.t .metadata.name}} {{or .missing "dflt"}} {{not .spec.t}} {{and .missing 1}}',
         "t1 dflt false <no value>"),
        ('{{eq .spec.f 1.5}} {{ne .metadata.name "t1"}} {{lt 1 2}} {{le 2 2}} {{gt (len .spec.ints) 1}}',
         "true false true true true"),
        ('{{eq .missing "x"}} {{eq .missing nil}}', "false true"),
        ("{{html \"<a href='x'>&</a>\"}}", "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;"),
        ('{{js "it\'s <b>\\"q\\"=1"}} {{urlquery "a b&c=d/é"}}',
         "it\\'s \\u003Cb\\u003E\\\"q\\\"\\u003D1 a+b%26c%3Dd%2F%C3%A9"),
        ('{{print 1 2 "a" "b" 3 .missing}} {{println "x" 1}}', "1 2ab3 <nil> x 1\n"),
        ("{{html .missing}}", "&lt;no value&gt;"),
        ('{{base64decode "aGVsbG8="}}', "hello"),
        ('{{exists . "metadata" "name"}} {{exists . "metadata" "nope"}} {{exists .spec.ints 2}} {{exists .spec "n"}}',
         "true false true false"),
        ('{{- .metadata.name -}}   \n  {{- "x" }}', "t1x"),
        ("a  {{- /* comment */ -}}  b {{/* c2 */}}c", "ab c"),
        ("{{(.spec.one).k}} {{(index .spec.items 0).name}}", "v a"),
        ("{{1.5}} {{1e3}} {{0x10}} {{'a'}} {{-3}} {{true}}", "1.5 1000 16 97 -3 true"),
        ("{{.spec.html}} {{printf \"%q\" .spec.html}}", 'a<b "a<b"'),
        ("{{if and .spec.t (gt (len .spec.ints) 3)}}big{{end}}", "big"),
    ],
)  # fmt: skip
def test_output(text: str, expected: str) -> None:
    assert run(text) == expected


def test_nested_range_over_objects_without_missing_keys() -> None:
    assert run("{{range .spec.items}}{{.extra}},{{end}}") == "<no value>,e,<no value>,"


def test_missing_key_fails_when_not_allowed() -> None:
    with pytest.raises(TemplateError) as caught:
        run("x{{.metadata.name}}{{.missing}}", allow=False)
    assert str(caught.value) == (
        'error executing template "x{{.metadata.name}}{{.missing}}": template: output:1:21: '
        'executing "output" at <.missing>: map has no entry for key "missing"'
    )


def test_failure_output_is_partial_text_then_debugging_block() -> None:
    data = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "x", "creationTimestamp": None}}
    with pytest.raises(TemplateError) as caught:
        run("x{{.metadata.name}}{{.missing}}", allow=False, data=data)
    assert caught.value.output == (
        'xxError executing template: template: output:1:21: executing "output" at <.missing>: '
        'map has no entry for key "missing". Printing more information for debugging the template:\n'
        "\ttemplate was:\n\t\tx{{.metadata.name}}{{.missing}}\n"
        '\traw data was:\n\t\t{"apiVersion":"v1","kind":"ConfigMap","metadata":{"creationTimestamp":null,"name":"x"}}\n'
        "\tobject given to template engine was:\n"
        "\t\tmap[apiVersion:v1 kind:ConfigMap metadata:map[creationTimestamp:<nil> name:x]]\n\n"
    )


@pytest.mark.parametrize(
    ("text", "allow", "message"),
    [
        ("{{.spec.n.x}}", True,
         'output:1:7: executing "output" at <.spec.n.x>: nil pointer evaluating interface {}.x'),
        ("{{.metadata.name.x}}", True,
         'output:1:11: executing "output" at <.metadata.name.x>: can\'t evaluate field x in type interface {}'),
        ("{{.missing.x}}", False,
         'output:1:10: executing "output" at <.missing.x>: map has no entry for key "missing"'),
        ("{{len .missing}}", True,
         'output:1:2: executing "output" at <len .missing>: error calling len: '
         "reflect: call of reflect.Value.Type on zero Value"),
        ("{{len .spec.f}}", True, 'at <len .spec.f>: error calling len: len of type float64'),
        ("{{index .spec.ints 9}}", True, "error calling index: index out of range: 9"),
        ("{{eq .spec.f 1}}", True, "error calling eq: incompatible types for comparison"),
        ("{{lt .spec.t true}}", True, "error calling lt: invalid type for comparison"),
        ("{{range .spec.t}}x{{end}}", True, "at <.spec.t>: range can't iterate over true"),
        ("{{.spec.ints 1}}", True, "at <.spec.ints>: ints is not a method but has arguments"),
        ('{{"a" 1}}', True, 'at <"a">: can\'t give argument to non-function "a"'),
        ("{{printf}}", True, "at <printf>: wrong number of args for printf: want at least 1 got 0"),
        ("{{len 1 2}}", True, "at <len>: wrong number of args for len: want 1 got 2"),
        ("{{printf .spec.f}}", True, "at <.spec.f>: wrong type for value; expected string; got float64"),
        ("{{printf 3}}", True, "at <3>: expected string; found 3"),
        ("{{nil}}", True, "at <nil>: nil is not a command"),
        ('{{base64decode "!!"}}', True,
         "error calling base64decode: base64 decode failed: illegal base64 data at input byte 0"),
    ],
)  # fmt: skip
def test_execution_errors(text: str, allow: bool, message: str) -> None:
    with pytest.raises(TemplateError) as caught:
        run(text, allow=allow)
    assert str(caught.value).startswith(f"error executing template {quote(text)}: template: output:1:")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{{.metadata.name", "template: output:1: unclosed action"),
        ("{{.metadata.name}", "template: output:1: bad character U+007D '}'"),
        ("{{if .spec.t}}x\n{{end}}{{end}}", "template: output:2: unexpected {{end}}"),
        ("{{if .spec.t}}x", "template: output:1: unexpected EOF"),
        ("{{else}}", "template: output:1: unexpected {{else}}"),
        ("{{nofunc 1}}", 'template: output:1: function "nofunc" not defined'),
        ("{{$undefined}}", 'template: output:1: undefined variable "$undefined"'),
        ("{{break}}", "template: output:1: {{break}} outside {{range}}"),
        ("{{.a | 3}}", "template: output:1: non executable command in pipeline stage 2"),
        ("{{/* x */ .a}}", "template: output:1: comment ends before closing delimiter"),
        ('{{"abc}}', "template: output:1: unterminated quoted string"),
        ('{{define "x"}}{{end}}', "template: output:1: {{define}} is not supported: svcctl runs a single template"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(TemplateError) as caught:
        parse_go_template(text)
    assert str(caught.value) == f"error parsing template {text}, {message}"


def test_integral_floats_become_int64_like_kubectls_json_round_trip() -> None:
    assert run('{{.n}} {{printf "%T" .n}}', data={"n": 1e21}) == "1e+21 float64"
    assert run('{{.n}} {{printf "%T" .n}}', data={"n": 3.0}) == "3 int64"
