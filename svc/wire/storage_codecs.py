"""The codec behind `--storage-media-type`: JSON, YAML or Protobuf, any of them readable later.

Whatever the format, a built-in object reads back as upstream reads it from Protobuf storage (its
Go type's JSON: lists without `omitempty` null when empty, non-pointer structs `{}`, ...): the
Protobuf decoder gives that shape itself; an object stored as JSON or YAML (under that media type,
or written before a field became always written) gets it from the write prune (omit_empty.py).
"""

from __future__ import annotations

from svc.api.brand import Profile
from svc.api.omit_empty import typed_pruner
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
        encode = JsonCodec().encode
    elif media_type == YAML_MEDIA_TYPE:
        encode = YAML.encode
    elif media_type == protobuf.media_type:
        encode = protobuf.encode
    else:
        supported = ", ".join((JSON_MEDIA_TYPE, YAML_MEDIA_TYPE, protobuf.media_type))
        raise ValueError(f'invalid --storage-media-type "{media_type}": supported values: {supported}')
    return SniffingCodec(
        media_type,
        encode,
        readers,
        shaped=frozenset({MAGIC}),
        read_back=typed_pruner(profile.upstream_group),
    )
