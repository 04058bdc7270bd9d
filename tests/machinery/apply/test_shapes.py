"""How list and map semantics are read from schemas."""

from __future__ import annotations

from svc.api.schemas import Schema
from svc.machinery.apply.shapes import Kind, Scalar, shape_of

ITEM = {"type": "object", "properties": {"name": {"type": "string"}}}


def test_list_type_map_takes_its_keys() -> None:
    ports = shape_of(Schema.named("io.k8s.api.core.v1.Container")).field("ports")
    assert ports is not None
    assert (ports.associative, ports.atomic, ports.keys) == (True, False, ("containerPort", "protocol"))


def test_patch_strategy_merge_with_a_key_makes_a_map_list() -> None:
    shape = shape_of(
        Schema(
            {
                "type": "array",
                "items": ITEM,
                "x-kubernetes-patch-strategy": "merge",
                "x-kubernetes-patch-merge-key": "name",
            }
        )
    )
    assert (shape.associative, shape.keys) == (True, ("name",))


def test_patch_strategy_merge_without_a_key_makes_a_set() -> None:
    shape = shape_of(Schema({"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"}))
    assert (shape.associative, shape.atomic, shape.keys) == (True, False, ())


def test_lists_without_merge_semantics_are_atomic() -> None:
    retain = shape_of(Schema({"type": "array", "items": ITEM, "x-kubernetes-patch-strategy": "retainKeys"}))
    plain = shape_of(Schema({"type": "array", "items": ITEM}))
    assert retain.atomic and plain.atomic


def test_list_type_overrides_patch_strategy() -> None:
    shape = shape_of(
        Schema(
            {
                "type": "array",
                "items": ITEM,
                "x-kubernetes-list-type": "atomic",
                "x-kubernetes-patch-strategy": "merge",
                "x-kubernetes-patch-merge-key": "name",
            }
        )
    )
    assert shape.atomic


def test_map_type_at_the_field_overrides_the_type() -> None:
    claim_ref = shape_of(Schema.named("io.k8s.api.core.v1.PersistentVolumeSpec")).field("claimRef")
    reference = shape_of(Schema.named("io.k8s.api.core.v1.ObjectReference"))
    assert claim_ref is not None and not claim_ref.atomic
    assert reference.atomic


def test_special_types() -> None:
    revision = shape_of(Schema.named("io.k8s.api.apps.v1.ControllerRevision"))
    assert revision.field("data").kind is Kind.UNTYPED
    port = shape_of(Schema.named("io.k8s.api.core.v1.ServicePort")).field("targetPort")
    assert port is not None and port.scalar is Scalar.UNTYPED
    assert shape_of(None).kind is Kind.DEDUCED


def test_key_defaults_upstream_declares() -> None:
    ports = shape_of(Schema.named("io.k8s.api.core.v1.ServiceSpec")).field("ports")
    assert ports is not None and ports.key_default("protocol") == "TCP"
