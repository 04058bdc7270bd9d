"""JSON <-> protobuf of the apimachinery types with custom JSON forms, byte for byte."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svc.wire.protobuf import ProtobufError, decode_envelope, decode_object, encode_object, forms
from svc.wire.protobuf.forms import FORMS
from tests.wire.protobuf.samples import read_back

META = "k8s.io.apimachinery.pkg.apis.meta.v1"
TIME, MICRO_TIME, DURATION = f"{META}.Time", f"{META}.MicroTime", f"{META}.Duration"
INT_OR_STRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity"
RAW_EXTENSION = "k8s.io.apimachinery.pkg.runtime.RawExtension"
FIELDS_V1 = f"{META}.FieldsV1"


def encode(message: str, value: object) -> bytes:
    return FORMS[message].encode(value)


def decode(message: str, payload: bytes) -> object:
    return FORMS[message].decode(payload, 0, len(payload))


@pytest.mark.parametrize(
    ("message", "json_value", "fields"),
    [
        (TIME, "2024-01-02T03:04:05Z", {"seconds": 1704164645, "nanos": 0}),
        (TIME, "1969-12-31T23:59:59Z", {"seconds": -1, "nanos": 0}),
        (MICRO_TIME, "2024-01-02T03:04:05.123456Z", {"seconds": 1704164645, "nanos": 123456000}),
        (DURATION, "1h2m3s", {"duration": 3723 * 10**9}),
        (INT_OR_STRING, 8080, {"type": 0, "intVal": 8080, "strVal": ""}),
        (INT_OR_STRING, -1, {"type": 0, "intVal": -1, "strVal": ""}),
        (INT_OR_STRING, "http", {"type": 1, "intVal": 0, "strVal": "http"}),
        (QUANTITY, "100m", {"string": "100m"}),
        (RAW_EXTENSION, {"a": [1, "x"]}, {"raw": b'{"a":[1,"x"]}'}),
        (FIELDS_V1, {"f:metadata": {"f:labels": {}}}, {"Raw": b'{"f:metadata":{"f:labels":{}}}'}),
    ],
)
def test_form_bytes_equal_the_official_message_and_decode_back(official, message, json_value, fields):
    payload = encode(message, json_value)
    assert payload == official(message)(**fields).SerializeToString()
    assert decode(message, payload) == json_value


@pytest.mark.parametrize(
    ("message", "json_value", "canonical"),
    [
        (TIME, "2024-01-02T04:04:05+01:00", "2024-01-02T03:04:05Z"),
        (TIME, "2024-01-02T03:04:05.999999999Z", "2024-01-02T03:04:05Z"),
        (MICRO_TIME, "2024-01-02T03:04:05.1234567Z", "2024-01-02T03:04:05.123456Z"),
        (MICRO_TIME, "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.000000Z"),
    ],
)
def test_times_come_back_in_utc_at_the_json_precision(message, json_value, canonical):
    assert decode(message, encode(message, json_value)) == canonical


def test_time_keeps_nanoseconds_on_the_wire(official):
    payload = encode(TIME, "2024-01-02T03:04:05.5Z")
    assert official(TIME).FromString(payload).nanos == 500_000_000


@pytest.mark.parametrize("message", [TIME, MICRO_TIME])
def test_empty_time_message_is_the_zero_time_which_is_json_null(message):
    assert decode(message, b"") is None


GO_ZERO_SECONDS = -62135596800  # 0001-01-01T00:00:00Z, Go's zero time


@pytest.mark.parametrize(
    ("message", "fields", "json_value"),
    [
        (TIME, {"seconds": GO_ZERO_SECONDS}, None),
        (TIME, {"seconds": GO_ZERO_SECONDS, "nanos": 5}, None),
        (TIME, {"seconds": 5, "nanos": 1_500_000_000}, "1970-01-01T00:00:05Z"),
        (MICRO_TIME, {"seconds": GO_ZERO_SECONDS}, None),
        (MICRO_TIME, {"seconds": GO_ZERO_SECONDS, "nanos": 999}, None),
        (MICRO_TIME, {"seconds": GO_ZERO_SECONDS, "nanos": 1000}, "0001-01-01T00:00:00.000001Z"),
    ],
)
def test_times_are_read_as_upstream_reads_them(official, message, fields, json_value):
    """Time drops the nanos, MicroTime truncates them to microseconds; Go's zero time is JSON null."""
    assert decode(message, official(message)(**fields).SerializeToString()) == json_value


@pytest.mark.parametrize(
    ("message", "payload", "json_value"),
    [(QUANTITY, b"", "0"), (INT_OR_STRING, b"", 0), (RAW_EXTENSION, b"", None), (DURATION, b"", "0s")],
)
def test_empty_messages_decode_to_upstream_zero_values(message, payload, json_value):
    assert decode(message, payload) == json_value


@pytest.mark.parametrize(
    ("message", "bad"),
    [
        (TIME, "2024-01-02 03:04:05"),
        (TIME, "2024-02-30T00:00:00Z"),
        (TIME, 1704164645),
        (INT_OR_STRING, True),
        (INT_OR_STRING, 1 << 31),
        (INT_OR_STRING, 1.5),
        (QUANTITY, ["1"]),
        (DURATION, "5 minutes"),
    ],
)
def test_values_of_the_wrong_form_are_rejected(message, bad):
    with pytest.raises(ProtobufError):
        encode(message, bad)


def test_raw_extension_that_is_not_json_is_rejected():
    with pytest.raises(ProtobufError, match="not JSON"):
        decode(RAW_EXTENSION, b"\x0a\x03k8s")


def test_bytes_fields_are_base64_in_json():
    secret = {"apiVersion": "v1", "kind": "Secret", "data": {"bin": "AAECAwQ=", "none": ""}}
    assert decode_object(encode_object(secret)) == read_back(secret)


def test_bytes_fields_reject_bad_base64_with_the_field_path():
    with pytest.raises(ProtobufError, match=r"^data\.bin: illegal base64 data"):
        encode_object({"apiVersion": "v1", "kind": "Secret", "data": {"bin": "not base64!"}})


def test_verbs_are_a_json_array_in_a_wrapper_message(official):
    resources = {
        "apiVersion": "v1",
        "kind": "APIResourceList",
        "groupVersion": "v1",
        "resources": [{"name": "pods", "namespaced": True, "kind": "Pod", "verbs": ["get", "list"]}],
    }
    body = encode_object(resources)
    parsed = official(f"{META}.APIResourceList").FromString(decode_envelope(body)[2])
    assert list(parsed.resources[0].verbs.items) == ["get", "list"]
    assert decode_object(body) == read_back(resources)


def test_extra_is_a_map_of_string_list_wrappers(official):
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {"user": "jane", "extra": {"scopes": ["a", "b"], "empty": []}},
    }
    body = encode_object(review)
    parsed = official("k8s.io.api.authorization.v1.SubjectAccessReview").FromString(decode_envelope(body)[2])
    assert list(parsed.spec.extra["scopes"].items) == ["a", "b"]
    assert decode_object(body) == read_back(review)


@settings(max_examples=400)
@given(
    st.text(alphabet="0123456789-:TtZz+ .x", min_size=20, max_size=20)
    | st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)).map(
        lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0")
    )
)
def test_the_whole_second_timestamp_path_reads_as_the_general_one(text: str) -> None:
    try:
        general = forms._encode_any_timestamp(text)
    except ProtobufError:
        general = None
    try:
        fast = forms._encode_timestamp(text)
    except ProtobufError:
        fast = None
    assert fast == general
