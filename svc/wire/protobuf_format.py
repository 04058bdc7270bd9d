"""The Protobuf envelope as a `Format`, spelled by the brand profile (`application/vnd.svc.protobuf`)."""

from __future__ import annotations

from typing import Any

from svc.api.brand import Profile
from svc.wire.formats import DecodeError, Format
from svc.wire.protobuf import ProtobufError, decode_object, encode_list, encode_object, supports, watch_frame


def protobuf_format(profile: Profile) -> Format:
    group_of = profile.upstream_group

    def encode(obj: Any) -> bytes | bytearray:
        kind = obj.get("kind", "")
        if kind.endswith("List") and "items" in obj:
            return encode_list(obj, kind.removesuffix("List"), group_of=group_of)
        return encode_object(obj, group_of=group_of)

    def decode(data: bytes) -> Any:
        try:
            return decode_object(data, group_of=group_of)
        except ProtobufError as error:
            raise DecodeError(str(error)) from None

    return Format(
        profile.protobuf_media_type,
        encode,
        decode,
        watch_frame=watch_frame,
        stream_media_type=f"{profile.protobuf_media_type};stream=watch",
        reads_items_once=True,
    )


def protobuf_supports(profile: Profile, api_version: str, kind: str) -> bool:
    return supports(api_version, kind, group_of=profile.upstream_group)
