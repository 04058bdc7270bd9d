"""Reset-field filters (`svc.machinery.apply.field_filter`): a filter either drops the reset paths or keeps
only the paths its patterns match, as upstream's exclude and include filters do."""

from __future__ import annotations

from svc.api.schemas import Schema
from svc.machinery.apply import FieldSet, ignored_fields, make_path, update_managed_fields
from svc.machinery.apply.field_filter import FieldFilter, pattern

POD = Schema.named("io.k8s.api.core.v1.Pod")
APP = {"name": "app"}


def test_keep_only_matches_prefixes_and_everything_below_with_any_one_element_for_a_wildcard() -> None:
    fields = FieldSet.of(
        make_path("spec"),
        make_path("spec", "containers", APP),
        make_path("spec", "containers", APP, "image"),
        make_path("spec", "containers", APP, "resources", "limits", "cpu"),
        make_path("metadata", "labels", "x"),
    )
    kept = FieldFilter(FieldSet(), (pattern(("spec", "containers", "*", "resources")),)).owned(fields)
    assert kept.strings() == [
        ".spec",
        '.spec.containers[name="app"]',
        '.spec.containers[name="app"].resources.limits.cpu',
    ]


def test_reset_paths_are_dropped_with_everything_below_them() -> None:
    fields = FieldSet.of(make_path("spec", "replicas"), make_path("status", "replicas"))
    assert ignored_fields([("status",)]).owned(fields).strings() == [".spec.replicas"]


def test_an_update_under_a_keep_only_filter_records_only_the_matching_changes() -> None:
    created = {
        "manager": "creator",
        "operation": "Update",
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:name": {}}}}},
    }
    before = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "managedFields": [created]},
        "spec": {"containers": [APP]},
    }
    after = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"x": "y"}},
        "spec": {"containers": [{**APP, "image": "i"}], "ephemeralContainers": [{"name": "d", "image": "b"}]},
    }
    result = update_managed_fields(
        before,
        after,
        manager="m",
        operation_time="2024-01-01T00:00:00Z",
        subresource="ephemeralcontainers",
        schema=POD,
        ignored=ignored_fields(keep_only=[("spec", "ephemeralContainers")]),
    )
    (entry,) = [entry for entry in result["metadata"]["managedFields"] if entry["manager"] == "m"]
    assert entry["fieldsV1"] == {
        "f:spec": {
            "f:ephemeralContainers": {
                ".": {},
                'k:{"name":"d"}': {".": {}, "f:image": {}, "f:name": {}, "f:resources": {}},
            }
        }
    }
