"""Which negotiated responses read a list's items once (Negotiated.one_pass_items)."""

from __future__ import annotations

import pytest

from svc.api.brand import PROFILES
from svc.wire.formats import JSON, YAML
from svc.wire.negotiation import negotiate
from svc.wire.protobuf_format import protobuf_format

PROTOBUF = protobuf_format(PROFILES["kubernetes"])
FORMATS = (JSON, YAML, PROTOBUF)


@pytest.mark.parametrize(
    ("accept", "one_pass"),
    [
        ("application/json", False),
        ("application/yaml", False),
        (PROTOBUF.media_type, True),
        ("application/json;as=Table;g=meta.k8s.io;v=v1", True),
        ("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", True),
        ("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", False),
    ],
)
def test_views_and_the_protobuf_encoder_read_items_once(accept: str, one_pass: bool) -> None:
    assert negotiate(accept, FORMATS, meta_group="meta.k8s.io").one_pass_items is one_pass
