"""Writers compiled per shape (an object's keys in order) write what a field-by-field walk would."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc.wire.protobuf import encoder
from svc.wire.protobuf.decoder import decoder
from svc.wire.protobuf.encoder import writer
from svc.wire.protobuf.field_code import FieldError

from .test_roundtrip import containers, metadata

CONTAINER = "k8s.io.api.core.v1.Container"
OBJECT_META = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"
PORT = "k8s.io.api.core.v1.ContainerPort"
CONFIG_MAP_ENV_SOURCE = "k8s.io.api.core.v1.ConfigMapEnvSource"  # LocalObjectReference's `name` inline


def _written(message: str, obj: dict) -> bytes:
    buf = bytearray()
    writer(message)(obj, buf)
    return bytes(buf)


def _field_by_field(message: str, obj: dict) -> bytes:
    """Each key written alone, in the object's order: a message's bytes are its fields' bytes."""
    return b"".join(_written(message, {key: value}) for key, value in obj.items())


def _recording_compiles(monkeypatch) -> list[tuple]:
    compiled: list[tuple] = []
    compile_shape = encoder.compile_shape
    monkeypatch.setattr(
        encoder, "compile_shape", lambda shape, *rest: compiled.append(shape) or compile_shape(shape, *rest)
    )
    return compiled


@given(metadata, st.randoms())
def test_metadata_in_any_key_order_is_its_fields_in_that_order(meta, random):
    keys = list(meta)
    random.shuffle(keys)
    reordered = {key: meta[key] for key in keys}
    assert _written(OBJECT_META, reordered) == _field_by_field(OBJECT_META, reordered)


@given(containers)
def test_containers_with_nested_messages_are_their_fields_in_order(container):
    assert _written(CONTAINER, container) == _field_by_field(CONTAINER, container)


def test_inline_keys_are_written_together_as_their_struct_after_the_other_fields():
    # ConfigMapEnvSource {localObjectReference=1 {name=1}, optional=2}: `name` sits in the parent's JSON.
    assert _written(CONFIG_MAP_ENV_SOURCE, {"name": "settings", "optional": True}) == (
        b"\x10\x01" + b"\x0a\x0a" + b"\x0a\x08settings"
    )


def test_an_object_longer_than_its_message_because_of_null_keys_is_written_without_them(monkeypatch):
    compiled = _recording_compiles(monkeypatch)
    padded = {"name": "http", **{f"unset{index}": None for index in range(20)}, "containerPort": 80}
    assert _written(PORT, padded) == _written(PORT, {"name": "http", "containerPort": 80})
    assert not [shape for shape in compiled if any(key.startswith("unset") for key in shape)]


def test_an_object_longer_than_its_message_names_a_key_with_a_value_and_no_field():
    padded = {"name": "http", **{f"unset{index}": None for index in range(20)}, "bogus": 1}
    with pytest.raises(FieldError, match=r"^bogus: unknown field in ContainerPort$"):
        _written(PORT, padded)


def test_past_the_shape_limit_objects_are_written_key_by_key_alike(monkeypatch):
    compiled = _recording_compiles(monkeypatch)
    monkeypatch.setattr(encoder, "_SHAPE_LIMIT", 0)
    port = {"protocol": "UDP", "hostIP": "10.0.0.1", "containerPort": 53, "name": "dns"}
    assert _written(PORT, port) == _field_by_field(PORT, port)
    assert all(len(shape) == 1 for shape in compiled)


def test_inline_keys_written_key_by_key_read_back_as_one_struct(monkeypatch):
    monkeypatch.setattr(encoder, "_SHAPE_LIMIT", 0)
    source = {"optional": False, "name": "settings"}
    data = _written(CONFIG_MAP_ENV_SOURCE, source)
    assert decoder(CONFIG_MAP_ENV_SOURCE)(data, 0, len(data)) == source


def test_a_value_that_is_not_an_object_is_a_type_error_for_the_parent_to_word():
    with pytest.raises(TypeError):
        _written(PORT, ["name"])
