"""Envelope, objects, lists and watch frames through the public API."""

from __future__ import annotations

import pytest

from svc.api.brand import SVC
from svc.wire.protobuf import (
    MAGIC,
    NotMarshalableError,
    ProtobufError,
    decode_envelope,
    decode_object,
    decode_watch_event,
    encode_envelope,
    encode_list,
    encode_message,
    encode_object,
    encode_watch_event,
    frame_length,
    supports,
)

from .samples import CONFIG_MAP_LIST, POD, SERVICE, read_back

ROLE = {
    "apiVersion": "rbac.authorization.svc/v1",
    "kind": "Role",
    "metadata": {"name": "reader", "namespace": "default"},
    "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
}


def test_envelope_bytes():
    assert encode_envelope("v1", "Pod", b"\x0a\x00") == bytes.fromhex(
        "6b387300"  # magic
        "0a09"
        "0a027631"
        "1203506f64"  # typeMeta {apiVersion "v1", kind "Pod"}
        "12020a00"  # raw
        "1a00"
        "2200"  # empty contentEncoding and contentType, as upstream writes them
    )


def test_envelope_decodes_back():
    assert decode_envelope(encode_envelope("apps/v1", "Deployment", b"\x01\x02")) == (
        "apps/v1",
        "Deployment",
        b"\x01\x02",
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            b'{"kind":"Pod"}',
            r"^provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]$",
        ),
        (b"k8s", "does not appear to be a protobuf message"),
        (b"", "^empty data$"),
        (MAGIC, "^empty body$"),
        (MAGIC + b"\x0a\x05\x0a", "malformed protobuf envelope"),
    ],
)
def test_bodies_that_are_not_envelopes_are_rejected(body, message):
    with pytest.raises(ProtobufError, match=message):
        decode_object(body)


def test_envelope_without_kind_is_rejected():
    with pytest.raises(ProtobufError, match="Kind' is missing"):
        decode_object(encode_envelope("v1", "", b""))


def test_envelope_of_an_unknown_kind_is_rejected():
    with pytest.raises(ProtobufError, match=r'no kind "Widget" is registered for version "example\.com/v1"'):
        decode_object(encode_envelope("example.com/v1", "Widget", b""))


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        ("v1", "Pod", True),
        ("apps/v1", "Deployment", True),
        ("v1", "Status", True),
        ("meta.k8s.io/v1", "PartialObjectMetadataList", True),
        ("apps/v1", "WatchEvent", True),
        ("meta.k8s.io/v1", "Table", False),
        ("example.com/v1", "Widget", False),
        ("rbac.authorization.svc/v1", "Role", False),
    ],
)
def test_supports(api_version, kind, expected):
    assert supports(api_version, kind) is expected


def test_table_is_not_marshalable():
    with pytest.raises(NotMarshalableError, match="does not implement the protobuf marshalling interface"):
        encode_object({"apiVersion": "meta.k8s.io/v1", "kind": "Table", "rows": []})


def test_served_group_names_map_to_upstream_messages_and_stay_in_the_envelope():
    body = encode_object(ROLE, group_of=SVC.upstream_group)
    assert decode_envelope(body)[:2] == ("rbac.authorization.svc/v1", "Role")
    assert decode_object(body, group_of=SVC.upstream_group) == ROLE
    assert supports("meta.svc/v1", "PartialObjectMetadata", group_of=SVC.upstream_group)


def test_meta_kinds():
    status = {
        "apiVersion": "v1",
        "kind": "Status",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "x" not found',
        "reason": "NotFound",
        "details": {"name": "x", "kind": "pods"},
        "code": 404,
    }
    partial = {
        "apiVersion": "meta.svc/v1",
        "kind": "PartialObjectMetadataList",
        "metadata": {"resourceVersion": "7"},
        "items": [{"metadata": {"name": "a", "labels": {"x": "y"}}}],
    }
    assert decode_object(encode_object(status)) == status
    assert decode_object(encode_object(partial, group_of=SVC.upstream_group), group_of=SVC.upstream_group) == partial


def test_list_items_may_be_dicts_with_type_meta_or_encoded_messages():
    first, second = CONFIG_MAP_LIST["items"][:2]
    items = [
        {"apiVersion": "v1", "kind": "ConfigMap", **first},
        encode_message({"apiVersion": "v1", "kind": "ConfigMap", **second}),
    ]
    body = encode_list({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {}, "items": items}, "ConfigMap")
    assert decode_object(body)["items"] == [first, second]


def test_list_metadata_is_written_even_when_absent():
    raw = decode_envelope(encode_list({"apiVersion": "v1", "items": []}, "Pod"))[2]
    assert raw == b"\x0a\x00"
    assert decode_object(encode_list({"apiVersion": "v1", "items": []}, "Pod")) == {
        "kind": "PodList",
        "apiVersion": "v1",
        "metadata": {},
    }


def test_list_item_errors_name_the_item():
    bad = {"apiVersion": "v1", "kind": "PodList", "items": [POD, {"metadata": {"name": 5}}]}
    with pytest.raises(ProtobufError, match=r"^items\[1\]\.metadata\.name: expected a string, got number$"):
        encode_list(bad, "Pod")


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (
            {"spec": {"containers": [{"name": "c", "bogus": 1}]}},
            r"^spec\.containers\.bogus: unknown field in Container$",
        ),
        ({"spec": {"priority": "high"}}, r"^spec\.priority: expected an integer, got string$"),
        ({"spec": {"priority": True}}, r"^spec\.priority: expected an integer, got boolean$"),
        ({"spec": {"priority": 1 << 31}}, r"^spec\.priority: value 2147483648 is out of range$"),
        ({"spec": {"hostNetwork": 1}}, r"^spec\.hostNetwork: expected a boolean, got number$"),
        (
            {"spec": {"containers": {"name": "c"}}},
            r"^spec\.containers: expected an array of objects, got object$",
        ),
        ({"spec": "x"}, r"^spec: expected an object, got string$"),
        ({"metadata": {"labels": {"a": 1}}}, r"^metadata\.labels\.a: expected a string, got number$"),
        (
            {"metadata": {"creationTimestamp": "yesterday"}},
            r"^metadata\.creationTimestamp: expected an RFC 3339",
        ),
        (
            {"spec": {"volumes": [{"name": "v", "emptyDir": {"medium": 3}}]}},
            r"^spec\.volumes\.emptyDir\.medium: expected a string",
        ),
    ],
)
def test_encoding_errors_name_the_field(patch, message):
    with pytest.raises(ProtobufError, match=message):
        encode_object({"apiVersion": "v1", "kind": "Pod", **patch})


def test_objects_without_type_meta_are_rejected():
    with pytest.raises(ProtobufError, match="no apiVersion and kind"):
        encode_object({"metadata": {"name": "x"}})


def test_null_values_are_left_out():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "x", "deletionTimestamp": None},
        "status": None,
    }
    decoded = decode_object(encode_object(pod))
    assert decoded["metadata"] == {"name": "x"}
    assert decoded["status"] == {}  # a non-pointer struct: null is its zero, written {}


def test_zero_values_upstream_json_omits_are_dropped_and_absent_structs_are_written_zero():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {"replicas": 0, "paused": False, "minReadySeconds": 0, "template": {}},
    }
    decoded = decode_object(encode_object(deployment))
    assert decoded["spec"]["replicas"] == 0  # replicas is a pointer: its 0 stays
    assert "paused" not in decoded["spec"] and "minReadySeconds" not in decoded["spec"]
    assert decoded["spec"]["strategy"] == {}  # a non-pointer struct not on the wire
    assert decoded["status"] == {}


def raw_pod_body(raw: bytes) -> bytes:
    return encode_envelope("v1", "Pod", raw)


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [(b"\x12\x01x\x12\x00", {}), (b"\x12\x00\x12\x01x", {"generateName": "x"})],
    ids=["zero-last", "zero-first"],
)
def test_a_field_written_twice_takes_its_last_value_even_an_omitted_zero(metadata, expected):
    raw = b"\x0a" + bytes([len(metadata)]) + metadata  # metadata(1).generateName(2) twice
    assert decode_object(raw_pod_body(raw))["metadata"] == expected


def test_unknown_fields_on_the_wire_are_skipped():
    raw = decode_envelope(encode_object(SERVICE))[2]
    extra = b"\xf8\x06\x2a" + b"\xfa\x06\x03abc" + b"\xfd\x06\x00\x00\x00\x00"  # fields 111 (varint, bytes, fixed32)
    assert decode_object(encode_envelope("v1", "Service", raw + extra)) == read_back(SERVICE)


def test_known_field_with_the_wrong_wire_type_is_rejected():
    with pytest.raises(ProtobufError, match="wrong wire type"):
        decode_object(raw_pod_body(b"\x08\x01"))  # metadata (1) as a varint


@pytest.mark.parametrize("raw", [b"\x0a\x05\x0a\x01", b"\x0a\x02\x0a\x05ab", b"\x0a\x80"])
def test_truncated_messages_are_rejected(raw):
    with pytest.raises(ProtobufError):
        decode_object(raw_pod_body(raw))


def test_packed_repeated_integers_are_accepted():
    groups = b"\x22\x03\x01\x02\x03"  # PodSecurityContext.supplementalGroups (4), packed
    raw = b"\x12" + bytes([len(groups) + 2]) + b"\x72" + bytes([len(groups)]) + groups  # spec(2).securityContext(14)
    assert decode_object(raw_pod_body(raw))["spec"] == {
        "securityContext": {"supplementalGroups": [1, 2, 3]},
        "containers": None,  # no omitempty: null when not on the wire
    }


def test_negative_integers_round_trip():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"generation": -5},
        "spec": {"priority": -(1 << 31), "containers": [{"name": "c"}]},
    }
    assert decode_object(encode_object(pod)) == read_back(pod)


def test_watch_frame_layout():
    frame = encode_watch_event("ADDED", POD)
    enveloped = encode_object(POD)
    raw_extension = b"\x0a" + bytes([len(enveloped) & 0x7F | 0x80, len(enveloped) >> 7]) + enveloped
    event = (
        b"\x0a\x05ADDED" + b"\x12" + bytes([len(raw_extension) & 0x7F | 0x80, len(raw_extension) >> 7]) + raw_extension
    )
    assert frame == len(event).to_bytes(4, "big") + event
    assert frame_length(frame[:4]) == len(event)


def test_watch_events_decode_back_including_errors():
    status = {"apiVersion": "v1", "kind": "Status", "status": "Failure", "reason": "Expired", "code": 410}
    assert decode_watch_event(encode_watch_event("ADDED", POD)) == ("ADDED", read_back(POD))
    assert decode_watch_event(encode_watch_event("ERROR", status)) == ("ERROR", {**status, "metadata": {}})
    assert decode_watch_event(
        encode_watch_event("ADDED", ROLE, group_of=SVC.upstream_group), group_of=SVC.upstream_group
    ) == ("ADDED", ROLE)


def test_watch_frame_with_a_wrong_length_is_rejected():
    with pytest.raises(ProtobufError, match="length"):
        decode_watch_event(encode_watch_event("ADDED", POD)[:-1])
