"""The codec behind `--storage-media-type`: JSON, YAML or Protobuf, any of them readable later."""

from __future__ import annotations

from svc.api.brand import Profile
from svc.storage.codec import JsonCodec, SniffingCodec, StorageCodec
from svc.wire.formats import YAML
from svc.wire.protobuf import MAGIC
from svc.wire.protobuf_format import protobuf_format

JSON_MEDIA_TYPE = "application/json"
YAML_MEDIA_TYPE = "application/yaml"


def storage_codec(media_type: str, profile: Profile) -> StorageCodec:
    """Raises ValueError for a media type that cannot be stored; an empty one is the profile's Protobuf
    type, the default of `--storage-media-type`."""
    protobuf = protobuf_format(profile)
    media_type = media_type or protobuf.media_type
    readers = {MAGIC: protobuf.decode, b"": YAML.decode}
    if media_type == JSON_MEDIA_TYPE:
        return SniffingCodec(media_type, JsonCodec().encode, readers)
    if media_type == YAML_MEDIA_TYPE:
        return SniffingCodec(media_type, YAML.encode, readers)
    if media_type == protobuf.media_type:
        return SniffingCodec(media_type, protobuf.encode, readers)
    supported = ", ".join((JSON_MEDIA_TYPE, YAML_MEDIA_TYPE, protobuf.media_type))
    raise ValueError(f'invalid --storage-media-type "{media_type}": supported values: {supported}')
