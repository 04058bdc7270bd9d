"""The client-side to server-side apply upgrade as pure functions (upstream's last-applied manager)."""

from __future__ import annotations

import json

import pytest

from svc.api.schemas import Schema
from svc.machinery.apply import ApplyConflict, update_managed_fields
from svc.machinery.apply.last_applied import apply_upgrading_last_applied

CONFIGMAP = Schema.named("io.k8s.api.core.v1.ConfigMap")
ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
T1, T2 = "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"


def _configmap(data: dict, annotations: dict | None = None) -> dict:
    metadata: dict = {"name": "c"}
    if annotations is not None:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


def _client_side_applied(data: dict) -> dict:
    text = json.dumps(_configmap(data), separators=(",", ":"), sort_keys=True) + "\n"
    return update_managed_fields(
        None,
        _configmap(data, {ANNOTATION: text}),
        manager="kubectl-client-side-apply",
        operation_time=T1,
        schema=CONFIGMAP,
    )


def _apply(live: dict, config: dict, manager: str = "kubectl") -> dict:
    return apply_upgrading_last_applied(
        live, config, manager=manager, force=False, annotation=ANNOTATION, schema=CONFIGMAP, operation_time=T2
    )


def test_kubectl_takes_over_fields_of_the_last_applied_configuration() -> None:
    applied = _apply(_client_side_applied({"a": "1"}), _configmap({"a": "2"}))
    assert applied["data"] == {"a": "2"}
    assert json.loads(applied["metadata"]["annotations"][ANNOTATION])["data"] == {"a": "2"}


def test_a_field_changed_since_the_client_side_apply_still_conflicts() -> None:
    live = _client_side_applied({"a": "1"})
    live = update_managed_fields(
        live, {**live, "data": {"a": "edited"}}, manager="editor", operation_time=T1, schema=CONFIGMAP
    )
    with pytest.raises(ApplyConflict) as raised:
        _apply(live, _configmap({"a": "2"}))
    assert [(c.manager, c.path) for c in raised.value.conflicts] == [("editor", ".data.a")]


def test_other_appliers_keep_their_conflicts() -> None:
    with pytest.raises(ApplyConflict):
        _apply(_client_side_applied({"a": "1"}), _configmap({"a": "2"}), manager="someone")


def test_without_the_annotation_the_conflict_stands() -> None:
    live = update_managed_fields(None, _configmap({"a": "1"}), manager="creator", operation_time=T1, schema=CONFIGMAP)
    with pytest.raises(ApplyConflict):
        _apply(live, _configmap({"a": "2"}))


def test_the_annotation_is_the_configuration_as_go_encodes_it() -> None:
    config = _configmap({"b": "<&>", "a": "1"}, {"x": "y"})
    applied = _apply(_client_side_applied({"a": "1"}), config)
    assert applied["metadata"]["annotations"][ANNOTATION] == (
        '{"apiVersion":"v1","data":{"a":"1","b":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap",'
        '"metadata":{"annotations":{"x":"y"},"name":"c"}}\n'
    )
