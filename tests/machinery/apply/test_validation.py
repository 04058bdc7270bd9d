"""Validation of apply configurations, with upstream's error texts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from svc.api.schemas import Schema
from svc.machinery.apply.shapes import shape_of
from svc.machinery.apply.typed import TypedError, field_set
from svc.machinery.apply.validation import validate, validated_field_set

DEPLOYMENT = shape_of(Schema.named("io.k8s.api.apps.v1.Deployment"))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"spec": {"replicas": "3"}}, ".spec.replicas: expected numeric (int or float), got string"),
        ({"spec": {"paused": 1}}, ".spec.paused: expected boolean, got &{1}"),
        ({"metadata": {"name": 3}}, ".metadata.name: expected string, got &value.valueUnstructured{Value:3}"),
        ({"spec": {"template": []}}, ".spec.template: expected map, got &{[]}"),
        ({"metadata": {"finalizers": "a"}}, ".metadata.finalizers: expected list, got &{a}"),
        ({"spec": {"replicaz": 1, "zzz": 2}}, ".spec.replicaz: field not declared in schema"),
        (
            {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}},
            ".spec.template.spec.containers: element 0: associative list with keys has an element that omits "
            'all key fields ["name"] (and doesn\'t have default values for any key fields)',
        ),
    ],
)
def test_validate_uses_upstream_messages(config: dict[str, Any], message: str) -> None:
    with pytest.raises(TypedError) as raised:
        validate(config, DEPLOYMENT)
    assert str(raised.value) == message


def test_validate_lists_several_errors() -> None:
    with pytest.raises(TypedError) as raised:
        validate({"spec": {"paused": "no", "replicas": True}}, DEPLOYMENT)
    assert str(raised.value) == (
        "errors:\n  .spec.paused: expected boolean, got &{no}\n"
        "  .spec.replicas: expected numeric (int or float), got bool"
    )


def test_validate_accepts_anything_without_a_schema() -> None:
    validate({"spec": {"anything": [{"goes": True}]}}, shape_of(None))


@pytest.mark.parametrize(
    "config",
    [
        {"metadata": {"labels": {"a": "b"}, "finalizers": ["x"]}, "spec": {"replicas": 2, "paused": None}},
        {"spec": {"template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}}}},
        {"spec": {"selector": {}, "strategy": {"type": "Recreate"}}},
        {"spec": {"paused": "no", "replicas": True}},
        {"spec": {"template": {"spec": {"containers": [{"name": "c"}, {"name": "c"}]}}}},
        {"spec": {"replicaz": 1}},
    ],
)
def test_validated_field_set_is_validate_then_field_set(config: dict[str, Any]) -> None:
    def separately() -> Any:
        validate(config, DEPLOYMENT)
        return field_set(config, DEPLOYMENT)

    assert _outcome(lambda: validated_field_set(config, DEPLOYMENT)) == _outcome(separately)


def _outcome(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except TypedError as error:
        return str(error)
