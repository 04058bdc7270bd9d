"""Run-time protobuf messages: string-keyed maps and enums encode as protoc's generated classes do."""

from __future__ import annotations

from svc.machinery.proto_messages import build_messages

MESSAGES = build_messages(
    "test.v1",
    {"Sealed": [("data", 1, "bytes"), ("annotations", 4, "map<string,bytes>"), ("kind", 5, "Kind")]},
    {"Kind": {"PLAIN": 0, "SEEDED": 1}},
)


def test_a_map_and_an_enum_use_protobuf_wire_format() -> None:
    message = MESSAGES["Sealed"](data=b"x", annotations={"a": b"1"}, kind=MESSAGES["Kind"].SEEDED)
    # field 1 bytes "x"; field 4 entry {1: "a", 2: "1"}; field 5 varint 1
    assert message.SerializeToString() == b'\n\x01x"\x06\n\x01a\x12\x011(\x01'


def test_messages_parse_back_with_map_and_enum_values() -> None:
    parsed = MESSAGES["Sealed"].FromString(b'\n\x01x"\x06\n\x01a\x12\x011(\x01')
    assert dict(parsed.annotations) == {"a": b"1"}
    assert parsed.kind == MESSAGES["Kind"].Value("SEEDED") == 1
    assert MESSAGES["Kind"].Name(0) == "PLAIN"
