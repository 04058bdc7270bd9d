"""Strict decoding of JSON and YAML bodies: the value upstream decodes and the duplicates it reports."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.wire.formats import DecodeError
from svc.wire.strict import decode_json_strict, decode_yaml_strict, read_yaml_document

# The bodies of upstream's field validation integration test, name filled in
# (kubernetes test/integration/apiserver/field_validation_test.go: invalidBodyJSON, invalidBodyYAML).
UPSTREAM_JSON = b"""
{
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "dupename",
        "name": "test-deployment",
        "labels": {"app": "nginx"},
        "unknownMeta": "metaVal"
    },
    "spec": {
        "unknown1": "val1",
        "unknownDupe": "valDupe",
        "unknownDupe": "valDupe2",
        "paused": true,
        "paused": false,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {
                "containers": [{
                    "name":  "nginx",
                    "image": "nginx:latest",
                    "unknownNested": "val1",
                    "imagePullPolicy": "Always",
                    "imagePullPolicy": "Never"
                }]
            }
        }
    }
}
"""

UPSTREAM_YAML = b"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: dupename
  name: test-deployment
  unknownMeta: metaVal
  labels:
    app: nginx
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  paused: true
  paused: false
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:latest
        unknownNested: val1
        imagePullPolicy: Always
        imagePullPolicy: Never"""


# -- JSON ------------------------------------------------------------------------------------------


def test_json_value_is_the_last_of_duplicated_keys() -> None:
    value, _ = decode_json_strict(UPSTREAM_JSON)
    assert value["metadata"]["name"] == "test-deployment"
    assert value["spec"]["paused"] is False


def test_json_without_duplicates_reports_none() -> None:
    assert decode_json_strict(b'{"a": {"b": [1, {"c": 2}]}}') == ({"a": {"b": [1, {"c": 2}]}}, [])


def test_json_duplicates_are_named_by_path_in_document_order() -> None:
    # Free-form decoding reports every duplicate, unknown fields included; upstream's merge-patch case
    # lists exactly these for the patch body (field_validation_test.go, merge-patch-strict-validation).
    _, duplicates = decode_json_strict(UPSTREAM_JSON)
    assert duplicates == [
        'duplicate field "metadata.name"',
        'duplicate field "spec.unknownDupe"',
        'duplicate field "spec.paused"',
        'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"a": 1, "a": 2}', ['duplicate field "a"']),
        (b'{"a": 1, "a": 2, "a": 3}', ['duplicate field "a"']),
        (b'[{"x": {"c": 1, "c": 2}}]', ['duplicate field "[0].x.c"']),
        (b'{"l": [[{"k": 1}], [{"k": 1, "k": 2}]]}', ['duplicate field "l[1][0].k"']),
        # both occurrences are decoded: a duplicate inside the first one is found too
        (b'{"a": {"b": 1, "b": 2}, "a": {"c": 1}}', ['duplicate field "a.b"', 'duplicate field "a"']),
        (b'{"a.b": 1, "a.b": 2}', ['duplicate field "a.b"']),
        (b'{"q\\"": 1, "q\\"": 2}', ['duplicate field "q\\""']),
    ],
)
def test_json_duplicate_paths(body: bytes, expected: list[str]) -> None:
    assert decode_json_strict(body)[1] == expected


@pytest.mark.parametrize("body", [b"{", b'{"a": NaN}', b"", b'{"a": 1,}', b"\xff"])
def test_malformed_json_raises_decode_error(body: bytes) -> None:
    with pytest.raises(DecodeError, match="json parse error"):
        decode_json_strict(body)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
        lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
        max_leaves=12,
    )
)
def test_json_decodes_what_orjson_decodes_and_finds_no_duplicate_in_encoded_json(value: object) -> None:
    assert decode_json_strict(orjson.dumps(value)) == (value, [])


# -- YAML: duplicates ------------------------------------------------------------------------------


def test_yaml_duplicates_are_go_yaml_line_messages() -> None:
    # Upstream's expected warnings, post-warn-validation-yaml (field_validation_test.go).
    _, duplicates = decode_yaml_strict(UPSTREAM_YAML)
    assert duplicates == [
        'line 5: key "name" already set in map',
        'line 12: key "unknownDupe" already set in map',
        'line 14: key "paused" already set in map',
        'line 28: key "imagePullPolicy" already set in map',
    ]


def test_yaml_nested_duplicates_come_before_their_parents_and_name_the_value_line() -> None:
    # go-yaml v2 decodes a value before storing its key, and reports the line of the value node.
    body = b"a: 1\na:\n  c: 1\n  c: 2\n"
    assert decode_yaml_strict(body)[1] == [
        'line 4: key "c" already set in map',
        'line 3: key "a" already set in map',
    ]


def test_yaml_keys_of_different_types_are_not_duplicates() -> None:
    assert decode_yaml_strict(b"1: a\n'1': b\n")[1] == []


def test_yaml_duplicate_non_string_keys_print_as_go_values() -> None:
    assert decode_yaml_strict(b"1: a\n1: b\n")[1] == ["line 2: key 1 already set in map"]


def test_yaml_duplicates_inside_an_anchor_repeat_at_every_alias() -> None:
    body = b"a: &x {k: 1, k: 2}\nb: *x\n"
    assert decode_yaml_strict(body)[1] == ['line 1: key "k" already set in map'] * 2


def test_yaml_merged_keys_count_as_set() -> None:
    # go-yaml v2 merges into the map being built, so an explicit key after `<<` is a duplicate
    # for its strict pass while the non-strict pass lets the later value win.
    body = b"base: &b {image: a, port: 1}\nobj:\n  <<: *b\n  image: c\n"
    value, duplicates = decode_yaml_strict(body)
    assert value["obj"] == {"image": "c", "port": 1}
    assert duplicates == ['line 4: key "image" already set in map']


def test_yaml_merge_of_a_sequence_lets_earlier_maps_win() -> None:
    body = b"a: &a {k: 1}\nb: &b {k: 2, j: 3}\nc:\n  <<: [*a, *b]\n"
    assert decode_yaml_strict(body)[0]["c"] == {"j": 3, "k": 1}


# -- YAML: values as upstream's YAML-to-JSON conversion makes them ---------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("y", True),
        ("Yes", True),
        ("on", True),
        ("n", False),
        ("OFF", False),
        ("~", None),
        ("", None),
        ("Null", None),
        ("0x1F", 31),
        ("0o17", 15),
        ("017", 15),
        ("08", 8),
        ("-0x10", -16),
        ("1_000", 1000),
        ("+12", 12),
        ("18446744073709551615", 18446744073709551615),
        ("3.0", 3),
        ("1e3", 1000),
        ("1.5", 1.5),
        (".5", 0.5),
        ("1e400", "1e400"),
        ("1:30", "1:30"),
        ("2024-01-01", "2024-01-01"),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
        ("yes please", "yes please"),
        ("'3'", "3"),
        ('"on"', "on"),
        ("!!str 3", "3"),
        ("!!float 3", 3),
        ("!!int '7'", 7),
        ("!!binary aGVsbG8=", "hello"),
        ("!custom 5", "5"),
    ],
)
def test_yaml_scalars_resolve_as_go_yaml_v2_does(text: str, value: object) -> None:
    decoded = decode_yaml_strict(f"k: {text}\n".encode())[0]["k"]
    assert decoded == value
    assert type(decoded) is type(value)


def test_yaml_keys_become_json_strings() -> None:
    assert decode_yaml_strict(b"1: a\ntrue: b\n1.5: c\ny: d\n")[0] == {"1": "a", "1.5": "c", "true": "d"}


def test_yaml_keys_come_out_sorted_as_from_a_go_map() -> None:
    value, _ = decode_yaml_strict(b"b: 1\nc: {z: 1, a: 2}\na: 3\n")
    assert list(value) == ["a", "b", "c"]
    assert list(value["c"]) == ["a", "z"]


def test_yaml_alias_values_are_independent_copies() -> None:
    value, _ = decode_yaml_strict(b"a: &x {k: [1]}\nb: *x\n")
    value["a"]["k"].append(2)
    assert value["b"] == {"k": [1]}


@pytest.mark.parametrize(("body", "value"), [(b"", None), (b"---\n", None), (b"# only\n", None), (b"42\n", 42)])
def test_yaml_documents_without_a_mapping(body: bytes, value: object) -> None:
    assert decode_yaml_strict(body) == (value, [])


def test_yaml_reads_only_the_first_document() -> None:
    assert decode_yaml_strict(b"a: 1\n---\nb: [\n") == ({"a": 1}, [])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"a: [1\n", "yaml: line 1: did not find expected ',' or ']'"),
        (b"a: b: c\n", "yaml: mapping values are not allowed in this context"),
        (b"a: 1\nb:\n\t- x\n", "yaml: line 3: found character that cannot start any token"),
        (b"- *nope\n", "yaml: unknown anchor 'nope' referenced"),
        (b"a: &x [*x]\n", "yaml: anchor 'x' value contains itself"),
        (b"a: !!int abc\n", "yaml: cannot decode !!str `abc` as a !!int"),
        (b"a: !!binary '%%%'\n", "yaml: !!binary value contains invalid base64 data"),
        (b"a: .nan\n", "json: unsupported value: NaN"),
        (b"a: [-.inf]\n", "json: unsupported value: -Inf"),
        (b"~: 1\n", "unsupported map key of type: %!s(<nil>), key: <nil>, value: 1"),
        (b"<<: 1\n", "yaml: map merge requires map or sequence of maps as the value"),
        (b"a: \x80\n", "yaml: invalid leading UTF-8 octet"),
    ],
)
def test_malformed_yaml_raises_decode_error_in_go_yaml_words(body: bytes, message: str) -> None:
    with pytest.raises(DecodeError) as raised:
        decode_yaml_strict(body)
    assert str(raised.value) == message


def test_yaml_alias_bombs_are_refused_as_go_yaml_refuses_them() -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")
    with pytest.raises(DecodeError, match="yaml: document contains excessive aliasing"):
        decode_yaml_strict("\n".join(lines).encode())


def test_yaml_moderate_aliasing_is_accepted() -> None:
    body = b"a: &a {x: 1}\n" + b"".join(b"k%d: *a\n" % index for index in range(50))
    value, _ = decode_yaml_strict(body)
    assert value["k49"] == {"x": 1}


def test_yaml_flow_nesting_beyond_go_yamls_limit_is_refused_before_parsing() -> None:
    # libyaml's composer recurses in C and would crash the process on this body.
    with pytest.raises(DecodeError, match=r"^yaml: exceeded max depth of 10000$"):
        decode_yaml_strict(b"[" * 100_000 + b"]" * 100_000)


def test_yaml_nesting_deeper_than_the_builder_goes_is_a_decode_error() -> None:
    with pytest.raises(DecodeError, match=r"^yaml: document nested too deeply$"):
        decode_yaml_strict(b"[" * 5_000 + b"]" * 5_000)


def test_yaml_block_nesting_deeper_than_the_parser_goes_is_a_decode_error() -> None:
    # libyaml from PyYAML 6.0.4 refuses this in its own words; older ones leave it to the builder.
    body = "".join(" " * depth + "a:\n" for depth in range(1_200)).encode()
    with pytest.raises(DecodeError, match=r"^yaml: document nested too deeply$"):
        decode_yaml_strict(body)


def test_yaml_merges_nest() -> None:
    body = b"a: &a {p: 1}\nb: &b {<<: *a, q: 2}\nc:\n  <<: *b\n  r: 3\n"
    assert decode_yaml_strict(body)[0]["c"] == {"p": 1, "q": 2, "r": 3}


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _JSON_VALUES, max_size=5))
def test_yaml_written_as_json_reads_as_the_yaml_reader_reads_it(document) -> None:
    data = orjson.dumps(document)
    assert _outcome(decode_yaml_strict, data) == _outcome(read_yaml_document, data)


def _outcome(decode, data: bytes) -> object:
    try:
        return decode(data)
    except DecodeError as error:
        return str(error)


def test_yaml_written_as_json_with_a_repeated_key_gets_the_yaml_messages() -> None:
    assert decode_yaml_strict(b'{"a": 1, "a": 2}') == ({"a": 2}, ['line 1: key "a" already set in map'])


@pytest.mark.parametrize("text", ["18446744073709551616", "-1e19", "1e19"])
def test_yaml_integral_numbers_past_int64_stay_floats(text: str) -> None:
    """Upstream reads the JSON that go-yaml's value becomes into an int64 when it fits, a float64 otherwise."""
    value = decode_yaml_strict(f"x: {text}\n".encode())[0]["x"]
    assert type(value) is float
    assert value == float(text)


def test_yaml_integral_float_within_int64_is_an_integer() -> None:
    assert decode_yaml_strict(b"x: 1e18\n")[0] == {"x": 10**18}
