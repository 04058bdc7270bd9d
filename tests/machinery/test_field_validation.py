"""Field validation reports what upstream's strict decoder reports, in its words and its order.

Where a text is quoted from upstream it says so. Type-error texts follow Go's
`json.UnmarshalTypeError` ("json: cannot unmarshal %s into Go struct field %s.%s of type %s") as
sigs.k8s.io/json fills it (the innermost struct, the path of struct fields only); the value
kinds and Go type names follow its decode.go `literalStore`, `array` and `object`.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from svc.api.schemas import Schema
from svc.machinery.field_validation import (
    FieldCheck,
    check_fields,
    decode_failure_message,
    duplicate_field,
    strict_error_message,
    time_parse_error,
    type_meta_error,
    unknown_field,
)
from svc.wire.strict import decode_json_strict, decode_yaml_strict
from tests.wire.test_strict import UPSTREAM_JSON, UPSTREAM_YAML

POD = Schema.named("io.k8s.api.core.v1.Pod")
DEPLOYMENT = Schema.named("io.k8s.api.apps.v1.Deployment")
SERVICE = Schema.named("io.k8s.api.core.v1.Service")
CONFIG_MAP = Schema.named("io.k8s.api.core.v1.ConfigMap")
SECRET = Schema.named("io.k8s.api.core.v1.Secret")
INGRESS = Schema.named("io.k8s.api.networking.v1.Ingress")
CRD = Schema.named("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition")
REVISION = Schema.named("io.k8s.api.apps.v1.ControllerRevision")
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def fatal(schema: Schema, obj: Any) -> str | None:
    return check_fields(obj, schema).fatal


def container(**fields: Any) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "c", "image": "i", **fields}]}}


def deployment_container(**fields: Any) -> dict[str, Any]:
    return {"spec": {"template": container(**fields)}}


# -- upstream's integration test, end to end -------------------------------------------------------


def test_json_body_gives_upstreams_strict_error_and_warnings() -> None:
    # Expected texts: field_validation_test.go, post-strict-validation and post-warn-validation.
    value, duplicates = decode_json_strict(UPSTREAM_JSON)
    check = check_fields(value, DEPLOYMENT, duplicates=duplicates)
    assert check.fatal is None
    assert check.problems == [
        'duplicate field "metadata.name"',
        'unknown field "metadata.unknownMeta"',
        'unknown field "spec.unknown1"',
        'unknown field "spec.unknownDupe"',
        'duplicate field "spec.paused"',
        'unknown field "spec.template.spec.containers[0].unknownNested"',
        'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
    ]
    assert strict_error_message(check.problems) == (
        'strict decoding error: duplicate field "metadata.name", unknown field "metadata.unknownMeta", '
        'unknown field "spec.unknown1", unknown field "spec.unknownDupe", duplicate field "spec.paused", '
        'unknown field "spec.template.spec.containers[0].unknownNested", '
        'duplicate field "spec.template.spec.containers[0].imagePullPolicy"'
    )


def test_yaml_body_gives_upstreams_strict_error_and_warnings() -> None:
    # Expected texts: field_validation_test.go, post-strict-validation-yaml and post-warn-validation-yaml.
    value, duplicates = decode_yaml_strict(UPSTREAM_YAML)
    check = check_fields(value, DEPLOYMENT, duplicates=duplicates)
    assert check.problems == [
        'line 5: key "name" already set in map',
        'line 12: key "unknownDupe" already set in map',
        'line 14: key "paused" already set in map',
        'line 28: key "imagePullPolicy" already set in map',
        'unknown field "metadata.unknownMeta"',
        'unknown field "spec.template.spec.containers[0].unknownNested"',
        'unknown field "spec.unknown1"',
        'unknown field "spec.unknownDupe"',
    ]
    assert strict_error_message(check.problems) == (
        "strict decoding error: yaml: unmarshal errors:\n"
        '  line 5: key "name" already set in map\n'
        '  line 12: key "unknownDupe" already set in map\n'
        '  line 14: key "paused" already set in map\n'
        '  line 28: key "imagePullPolicy" already set in map, unknown field "metadata.unknownMeta", '
        'unknown field "spec.template.spec.containers[0].unknownNested", unknown field "spec.unknown1", '
        'unknown field "spec.unknownDupe"'
    )


def test_merge_patch_reports_patch_duplicates_then_unknown_fields_of_the_sorted_result() -> None:
    # Expected text: field_validation_test.go, merge-patch-strict-validation. Upstream decodes the
    # patch free-form (every duplicate), then the patched object re-encoded from a Go map (sorted keys).
    patch = b"""{"spec": {"unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
        "paused": true, "paused": false, "template": {"spec": {"containers": [{"name": "nginx",
        "image": "nginx:latest", "unknownNested": "val1", "imagePullPolicy": "Always",
        "imagePullPolicy": "Never"}]}}}}"""
    patch_value, patch_duplicates = decode_json_strict(patch)
    patched = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "labels": {"app": "nginx"}},
        "spec": {
            **patch_value["spec"],
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {"metadata": {"labels": {"app": "nginx"}}, **patch_value["spec"]["template"]},
        },
    }
    problems = patch_duplicates + check_fields(patched, DEPLOYMENT, sort_keys=True).problems
    assert strict_error_message(problems) == (
        'strict decoding error: duplicate field "spec.unknownDupe", duplicate field "spec.paused", '
        'duplicate field "spec.template.spec.containers[0].imagePullPolicy", '
        'unknown field "spec.template.spec.containers[0].unknownNested", unknown field "spec.unknown1", '
        'unknown field "spec.unknownDupe"'
    )


# -- fatal type errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "obj", "message"),
    [
        # string where an array of structs is expected (the brief's example text)
        (
            POD,
            {"spec": {"containers": "x"}},
            "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container",
        ),
        # object where an array is expected; text seen from upstream in openclarity/apiclarity#304
        (
            INGRESS,
            {"spec": {"rules": {"http": {"paths": []}}}},
            "json: cannot unmarshal object into Go struct field IngressSpec.spec.rules of type []v1.IngressRule",
        ),
        # an element of the wrong kind: indexes are not part of the Go field path
        (
            POD,
            {"spec": {"containers": ["x"]}},
            "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type v1.Container",
        ),
        (
            DEPLOYMENT,
            {"spec": {"selector": {"matchLabels": {"app": 5}}}},
            "json: cannot unmarshal number into Go struct field LabelSelector.spec.selector.matchLabels of type string",
        ),
        # array where a struct is expected
        (POD, {"spec": []}, "json: cannot unmarshal array into Go struct field Pod.spec of type v1.PodSpec"),
        (
            DEPLOYMENT,
            {"spec": {"template": {"spec": [1]}}},
            "json: cannot unmarshal array into Go struct field PodTemplateSpec.spec.template.spec of type v1.PodSpec",
        ),
        # number where a string is expected: no number text for non-numeric targets
        (
            POD,
            container(name=5),
            "json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string",
        ),
        (
            DEPLOYMENT,
            deployment_container(args=["a", 1]),
            "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.args "
            "of type string",
        ),
        # string where an integer is expected, at three depths
        (
            DEPLOYMENT,
            {"spec": {"replicas": "3"}},
            "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            POD,
            container(ports=[{"containerPort": "80"}]),
            "json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort "
            "of type int32",
        ),
        (
            DEPLOYMENT,
            deployment_container(livenessProbe={"periodSeconds": "3"}),
            "json: cannot unmarshal string into Go struct field Probe.spec.template.spec.containers.livenessProbe"
            ".periodSeconds of type int32",
        ),
        # integers: overflow and non-integral numbers carry the number's text
        (
            POD,
            container(ports=[{"containerPort": 2147483648}]),
            "json: cannot unmarshal number 2147483648 into Go struct field ContainerPort.spec.containers.ports"
            ".containerPort of type int32",
        ),
        (
            POD,
            {"spec": {"terminationGracePeriodSeconds": 9223372036854775808}},
            "json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec"
            ".terminationGracePeriodSeconds of type int64",
        ),
        (
            DEPLOYMENT,
            {"spec": {"replicas": 1.5}},
            "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            DEPLOYMENT,
            {"spec": {"replicas": 3.0}},
            "json: cannot unmarshal number 3.0 into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        # bool mismatches, both ways
        (
            POD,
            {"spec": {"hostNetwork": "true"}},
            "json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool",
        ),
        (
            DEPLOYMENT,
            {"spec": {"replicas": True}},
            "json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            POD,
            {"metadata": {"name": False}},
            "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string",
        ),
        # maps: the map itself and its values
        (
            POD,
            {"metadata": {"labels": ["a"]}},
            "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
        ),
        (
            POD,
            {"metadata": {"labels": {"a": 1}}},
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
        ),
        (
            CONFIG_MAP,
            {"data": {"a": {"b": "c"}}},
            "json: cannot unmarshal object into Go struct field ConfigMap.data of type string",
        ),
        (
            POD,
            container(resources={"limits": ["1"]}),
            "json: cannot unmarshal array into Go struct field ResourceRequirements.spec.containers.resources.limits"
            " of type v1.ResourceList",
        ),
        (
            Schema.named("io.k8s.api.core.v1.Node"),
            {"spec": {"unschedulable": 1}},
            "json: cannot unmarshal number into Go struct field NodeSpec.spec.unschedulable of type bool",
        ),
        # floats take any number, nothing else
        (
            CRD,
            {"spec": {"versions": [{"schema": {"openAPIV3Schema": {"maximum": "9"}}}]}},
            "json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema"
            ".maximum of type float64",
        ),
        # a struct without fields still refuses other kinds
        (
            CRD,
            {"spec": {"versions": [{"subresources": {"status": []}}]}},
            "json: cannot unmarshal array into Go struct field CustomResourceSubresources.spec.versions.subresources"
            ".status of type v1.CustomResourceSubresourceStatus",
        ),
        # the whole body of the wrong kind
        (POD, [1], "json: cannot unmarshal array into Go value of type v1.Pod"),
    ],
)
def test_fatal_type_errors_in_upstream_words(schema: Schema, obj: Any, message: str) -> None:
    assert fatal(schema, obj) == message


# Secret data is []byte: base64 text, with the standard decoder's error offsets (it skips CR and LF).
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("YWRtaW4=", None),
        ("YWJj\nZGVm", None),
        ("", None),
        # seen from upstream for `username: billy` (kubernetes/kubernetes#31548) and `admin` (#7817)
        ("billy", "illegal base64 data at input byte 4"),
        ("admin", "illegal base64 data at input byte 4"),
        ("hello world", "illegal base64 data at input byte 5"),
        ("YQ", "illegal base64 data at input byte 0"),
        ("YQ=", "illegal base64 data at input byte 3"),
        ("Y===", "illegal base64 data at input byte 1"),
        ("YQ==YQ==", "illegal base64 data at input byte 4"),
        ("YWJ=x", "illegal base64 data at input byte 4"),
        ("YQ=\n=", None),
    ],
)
def test_bytes_fields_take_base64_with_go_offsets(text: str, message: str | None) -> None:
    assert fatal(SECRET, {"data": {"k": text}}) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([104, 105], None),
        (5, "json: cannot unmarshal number into Go struct field Secret.data of type []uint8"),
        ({}, "json: cannot unmarshal object into Go struct field Secret.data of type []uint8"),
        ([1, 256], "json: cannot unmarshal number 256 into Go struct field Secret.data of type uint8"),
        ([-1], "json: cannot unmarshal number -1 into Go struct field Secret.data of type uint8"),
        (["a"], "json: cannot unmarshal string into Go struct field Secret.data of type uint8"),
    ],
)
def test_bytes_fields_also_take_arrays_of_bytes(value: Any, message: str | None) -> None:
    assert fatal(SECRET, {"data": {"k": value}}) == message


@pytest.mark.parametrize(
    ("target_port", "message"),
    [
        ("http", None),
        (8080, None),
        (None, None),
        (True, "json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32"),
        (1.5, "json: cannot unmarshal number 1.5 into Go struct field ServicePort.spec.ports.targetPort of type int32"),
        (
            2147483648,
            "json: cannot unmarshal number 2147483648 into Go struct field ServicePort.spec.ports.targetPort "
            "of type int32",
        ),
        ([80], "json: cannot unmarshal array into Go struct field ServicePort.spec.ports.targetPort of type int32"),
        ({}, "json: cannot unmarshal object into Go struct field ServicePort.spec.ports.targetPort of type int32"),
    ],
)
def test_int_or_string_decodes_non_strings_as_int32(target_port: Any, message: str | None) -> None:
    # IntOrString's UnmarshalJSON hands non-strings to json.Unmarshal into its int32 (intstr.go).
    assert fatal(SERVICE, {"spec": {"ports": [{"port": 80, "targetPort": target_port}]}}) == message


@pytest.mark.parametrize(
    ("quantity", "message"),
    [
        ("500m", None),
        ("1.5Gi", None),
        (" 2 ", None),
        ("1e3", None),
        (2, None),
        (0.5, None),
        ("1x", QUANTITY_FORMAT),
        ("", QUANTITY_FORMAT),
        (True, QUANTITY_FORMAT),
        ({"a": 1}, QUANTITY_FORMAT),
        # texts: apimachinery pkg/api/resource/quantity.go ErrSuffix
        ("1mi", "unable to parse quantity's suffix"),
    ],
)
def test_quantities_are_parsed_by_their_own_decoder(quantity: Any, message: str | None) -> None:
    assert fatal(POD, container(resources={"requests": {"cpu": quantity}})) == message


@pytest.mark.parametrize(
    ("timestamp", "message"),
    [
        ("2024-01-01T00:00:00Z", None),
        ("2024-01-01T00:00:00.5+01:00", None),
        (None, None),
        # Time's UnmarshalJSON reads a string first (apimachinery pkg/apis/meta/v1/time.go)
        (
            5,
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string",
        ),
        # Go's time.Parse wording; the second is seen from upstream in kubed#5 (kubectl --since-time)
        ("abc", 'parsing time "abc" as "2006-01-02T15:04:05Z07:00": cannot parse "abc" as "2006"'),
        ("2024-08-20", 'parsing time "2024-08-20" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'),
        (
            "2024-01-01T00:00:00.123456",
            'parsing time "2024-01-01T00:00:00.123456" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
        ),
        ("2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
    ],
)
def test_timestamps_are_parsed_by_their_own_decoder(timestamp: Any, message: str | None) -> None:
    assert fatal(POD, {"metadata": {"creationTimestamp": timestamp}}) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        # seen from upstream in strimzi-kafka-operator#4538
        (
            "2021-03-09T10:32:01+0000",
            'parsing time "2021-03-09T10:32:01+0000" as "2006-01-02T15:04:05Z07:00": cannot parse "+0000" as "Z07:00"',
        ),
        (
            "2024-1-01T00:00:00Z",
            'parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"',
        ),
        ("2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
        ("2024-01-01T24:00:00Z", 'parsing time "2024-01-01T24:00:00Z": hour out of range'),
        ("2024-01-01T00:60:00Z", 'parsing time "2024-01-01T00:60:00Z": minute out of range'),
        ("2024-01-01T00:00:60Z", 'parsing time "2024-01-01T00:00:60Z": second out of range'),
        ("2024-01-01T00:00:00+25:00", 'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range'),
        ("2024-01-01T00:00:00Zjunk", 'parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"'),
        ("é", 'parsing time "\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xa9" as "2006"'),
        ("2024-02-29T1:02:03Z", None),
    ],
)
def test_time_parse_errors_follow_go(value: str, message: str | None) -> None:
    assert time_parse_error(value) == message


def test_micro_time_wants_six_fraction_digits() -> None:
    assert time_parse_error("2024-01-01T00:00:00.123456Z", micro=True) is None
    assert time_parse_error("2024-01-01T00:00:00Z", micro=True) == (
        'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'
    )


# -- which fatal error wins ------------------------------------------------------------------------


def test_the_first_type_error_in_document_order_wins() -> None:
    obj = {"spec": {"replicas": "x", "minReadySeconds": "y"}}
    assert fatal(DEPLOYMENT, obj) == (
        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    )
    swapped = {"spec": {"minReadySeconds": "y", "replicas": "x"}}
    assert "minReadySeconds" in (fatal(DEPLOYMENT, swapped) or "")


def test_an_error_from_a_types_own_decoder_wins_over_earlier_type_errors() -> None:
    # Custom unmarshalers abort the decode; the plain type error found before is dropped.
    obj = {"spec": {"ports": [{"port": "80", "targetPort": True}]}}
    assert fatal(SERVICE, obj) == (
        "json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32"
    )


def test_a_fatal_error_silences_unknown_and_duplicate_fields() -> None:
    value, duplicates = decode_json_strict(b'{"spec": {"foo": 1, "replicas": "x", "paused": true, "paused": false}}')
    check = check_fields(value, DEPLOYMENT, duplicates=duplicates)
    assert check == FieldCheck(
        fatal="json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    )


# -- null ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj",
    [
        {"metadata": None},
        {"metadata": {"name": None, "labels": None, "creationTimestamp": None}},
        {"metadata": {"labels": {"a": None}}},
        container(ports=None, args=[None], stdin=None),
        container(ports=[{"containerPort": None}], resources={"limits": {"cpu": None}}),
        {"spec": {"containers": [None], "hostNetwork": None}},
    ],
)
def test_null_is_accepted_everywhere(obj: Any) -> None:
    assert check_fields(obj, POD) == FieldCheck()


@pytest.mark.parametrize("number", [5, 5.5, -1e300])
def test_float_fields_take_integers_and_floats(number: float) -> None:
    assert fatal(CRD, {"spec": {"versions": [{"schema": {"openAPIV3Schema": {"maximum": number}}}]}}) is None


def test_null_int_or_string_and_bytes_are_accepted() -> None:
    assert fatal(SERVICE, {"spec": {"ports": [{"port": 1, "targetPort": None}]}}) is None
    assert fatal(SECRET, {"data": {"k": None}}) is None


# -- unknown fields --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "obj", "path"),
    [
        (POD, {"foo": 1}, "foo"),
        (POD, {"metadata": {"foo": 1}}, "metadata.foo"),
        (POD, container(foo=1), "spec.containers[0].foo"),
        (DEPLOYMENT, deployment_container(foo=1), "spec.template.spec.containers[0].foo"),
        (
            POD,
            {"spec": {"volumes": [{"name": "a"}, {"name": "b", "configMap": {"items": [{"key": "k", "bar": 2}]}}]}},
            "spec.volumes[1].configMap.items[0].bar",
        ),
        (
            CRD,
            {"spec": {"versions": [{"subresources": {"status": {"foo": 1}}}]}},
            "spec.versions[0].subresources.status.foo",
        ),
        (
            CRD,
            {"spec": {"versions": [{"schema": {"openAPIV3Schema": {"properties": {"spec": {"bogus": 1}}}}}]}},
            "spec.versions[0].schema.openAPIV3Schema.properties.spec.bogus",
        ),
        (POD, {"metadata": {'we"ird': 1}}, 'metadata.we"ird'),
    ],
)
def test_unknown_fields_are_named_by_their_path(schema: Schema, obj: Any, path: str) -> None:
    check = check_fields(obj, schema)
    assert check.unknown == check.problems == [unknown_field(path)]


def test_unknown_field_messages_quote_as_go_does() -> None:
    assert unknown_field('a"b\n') == 'unknown field "a\\"b\\n"'
    assert duplicate_field("x[0].y") == 'duplicate field "x[0].y"'


def test_case_matters_for_field_names() -> None:
    assert check_fields({"Metadata": {}}, POD).unknown == ['unknown field "Metadata"']


def test_unknown_fields_are_capped_at_a_hundred() -> None:
    check = check_fields({"metadata": {f"f{index}": 1 for index in range(150)}}, POD)
    assert len(check.problems) == len(check.unknown) == 100
    assert check.problems[-1] == 'unknown field "metadata.f99"'


def test_free_form_values_take_anything() -> None:
    obj = {"data": {"anything": [1, {"x": 2}], "kind": 5}, "revision": 1}
    assert check_fields(obj, REVISION) == FieldCheck()


def test_managed_fields_sets_are_free_form() -> None:
    obj = {"metadata": {"managedFields": [{"fieldsV1": {"f:spec": {"f:x": {}}}, "time": "2024-01-01T00:00:00Z"}]}}
    assert check_fields(obj, POD) == FieldCheck()


def test_preserve_unknown_fields_keeps_unknown_keys_and_still_checks_known_ones() -> None:
    schema = Schema(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"size": {"type": "integer", "format": "int32"}},
                }
            },
        }
    )
    assert check_fields({"spec": {"anything": {"goes": 1}}}, schema) == FieldCheck()
    assert (check_fields({"spec": {"size": "big"}}, schema).fatal or "").startswith(
        "json: cannot unmarshal string into Go struct field"
    )


# -- duplicates ------------------------------------------------------------------------------------


def test_duplicates_are_kept_only_where_the_typed_decoder_looks() -> None:
    body = (
        b'{"metadata": {"labels": {"a": "1", "a": "2"}}, "foo": {"x": 1, "x": 2},'
        b' "spec": {"containers": [{"name": "c", "name": "d", "bar": {"y": 1, "y": 2}}]}}'
    )
    value, duplicates = decode_json_strict(body)
    assert len(duplicates) == 4
    check = check_fields(value, POD, duplicates=duplicates)
    assert check.problems == [
        'duplicate field "metadata.labels.a"',
        'unknown field "foo"',
        'duplicate field "spec.containers[0].name"',
        'unknown field "spec.containers[0].bar"',
    ]


def test_duplicates_inside_free_form_values_are_not_reported() -> None:
    value, duplicates = decode_json_strict(b'{"revision": 1, "data": {"k": 1, "k": 2}}')
    assert check_fields(value, REVISION, duplicates=duplicates) == FieldCheck()


def test_without_a_schema_every_duplicate_counts_and_nothing_is_unknown() -> None:
    value, duplicates = decode_json_strict(b'{"spec": {"foo": 1, "foo": 2, "replicas": "x"}}')
    assert check_fields(value, None, duplicates=duplicates) == FieldCheck(problems=['duplicate field "spec.foo"'])


# -- texts around the checks -----------------------------------------------------------------------


def test_strict_error_message_joins_with_commas() -> None:
    # apimachinery pkg/runtime/error.go strictDecodingError.Error; apiserver endpoints test
    # strictDecodingErr = `strict decoding error: duplicate field "other", unknown field "unknown"`.
    assert strict_error_message(['duplicate field "other"', 'unknown field "unknown"']) == (
        'strict decoding error: duplicate field "other", unknown field "unknown"'
    )
    assert strict_error_message(['line 5: key "other" already set in map', 'unknown field "unknown"']) == (
        'strict decoding error: yaml: unmarshal errors:\n  line 5: key "other" already set in map, '
        'unknown field "unknown"'
    )


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"kind": "Pod", "apiVersion": "v1"}, None),
        ({"kind": None}, None),
        (None, None),
        (
            {"kind": 5},
            "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field "
            ".kind of type string",
        ),
        (
            {"APIVERSION": ["v1"]},
            "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go struct field "
            ".apiVersion of type string",
        ),
        (
            "text",
            "couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type "
            'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
        ),
    ],
)
def test_type_meta_errors_come_from_the_kind_sniffing_decoder(obj: Any, message: str | None) -> None:
    # apimachinery pkg/runtime/serializer/json/meta.go SimpleMetaFactory.Interpret
    assert type_meta_error(obj) == message


def test_decode_failure_message_names_the_claimed_kind() -> None:
    # apiserver pkg/endpoints/handlers/rest.go transformDecodeError and summarizeData
    assert decode_failure_message("boom", target_kind="Pod", data_kind="Pod", data_version="v1") == (
        'Pod in version "v1" cannot be handled as a Pod: boom'
    )
    long_body = b'{"kind": 5, "apiVersion": "v1", "metadata": {}}'
    assert decode_failure_message("boom", target_kind="Pod", body=long_body) == (
        'the object provided is unrecognized (must be of type Pod): boom ({"kind": 5, "apiVersion": "v1" ...)'
    )
    assert decode_failure_message("boom", target_kind="Pod", body=b"[1]") == (
        "the object provided is unrecognized (must be of type Pod): boom (5b315d)"
    )
    assert decode_failure_message("boom", target_kind="Pod") == (
        "the object provided is unrecognized (must be of type Pod): boom (<empty>)"
    )


def test_check_fields_does_not_change_its_input() -> None:
    value, duplicates = decode_json_strict(UPSTREAM_JSON)
    before = copy.deepcopy(value)
    check_fields(value, DEPLOYMENT, duplicates=duplicates, sort_keys=True)
    assert value == before


def test_nesting_deeper_than_the_walk_goes_is_fatal_not_a_crash() -> None:
    schema: dict[str, Any] = {}
    deepest = schema
    for _ in range(1_000):
        deepest["properties"] = {"x": {}}
        deepest = deepest["properties"]["x"]
    crd = {"spec": {"versions": [{"schema": {"openAPIV3Schema": schema}}]}}
    assert fatal(CRD, crd) == "json: exceeded max depth"
