"""managedFields bookkeeping and apply: errors, entry format and the repeated-apply invariant."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api.schemas import Schema
from svc.machinery.apply import (
    ApplyConflict,
    Conflict,
    FieldSet,
    ManagedFieldsError,
    ManagerKey,
    TypedError,
    apply,
    default_ignored,
    ignored_fields,
    make_path,
    update_managed_fields,
    validate_managed_fields,
)
from svc.machinery.apply.entries import Managed, Owned, encode

CONFIGMAP = Schema.named("io.k8s.api.core.v1.ConfigMap")
POD = Schema.named("io.k8s.api.core.v1.Pod")
T1, T2 = "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"


def configmap(**data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": data}


def test_conflict_causes_and_status_follow_upstream() -> None:
    owner = ManagerKey("kube-controller-manager", "Update", "apps/v1", "status")
    error = ApplyConflict([Conflict(owner.manager, owner, ".status.replicas")])
    cause = {
        "reason": "FieldManagerConflict",
        "message": 'conflict with "kube-controller-manager" with subresource "status" using apps/v1',
        "field": ".status.replicas",
    }
    assert error.causes() == [cause]
    status = error.status_error().status()
    assert (status["code"], status["reason"], status["details"]) == (409, "Conflict", {"causes": [cause]})
    assert status["message"] == (
        'Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource "status" '
        "using apps/v1: .status.replicas"
    )


def test_default_ignored_sets() -> None:
    deletion = [".metadata.deletionGracePeriodSeconds", ".metadata.deletionTimestamp"]
    assert default_ignored(status_subresource=False).reset.strings() == deletion
    assert default_ignored(status_subresource=True).reset.strings() == [".status", *deletion]
    assert default_ignored(status_subresource=True, subresource="status").reset.strings() == [".spec", *deletion]
    ignored = ignored_fields([("spec",), ("metadata", "labels")])
    assert ignored.reset.strings() == [".spec", *deletion, ".metadata.labels"]


def test_inputs_are_not_modified() -> None:
    live = update_managed_fields(None, configmap(a="1"), manager="m", operation_time=T1, schema=CONFIGMAP)
    config = configmap(a="1", b="2")
    frozen = copy.deepcopy((live, config))
    apply(live, config, manager="x", force=True, operation_time=T2, schema=CONFIGMAP)
    update_managed_fields(live, config, manager="y", operation_time=T2, schema=CONFIGMAP)
    assert (live, config) == frozen


def test_operation_time_must_be_rfc3339_with_zone() -> None:
    with pytest.raises(ValueError, match="not an RFC 3339 time"):
        apply(None, configmap(), manager="m", force=False, operation_time="yesterday", schema=CONFIGMAP)


def test_apply_refuses_unreadable_live_managed_fields() -> None:
    live = configmap(a="1")
    live["metadata"]["managedFields"] = [{"manager": "m", "operation": "Patch", "apiVersion": "v1"}]
    with pytest.raises(
        ManagedFieldsError, match="failed to decode managed fields: operation must be `Apply` or `Update`"
    ):
        apply(live, configmap(a="2"), manager="m", force=False, operation_time=T1, schema=CONFIGMAP)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"operation": "Update", "fieldsType": "FieldsV1"}, "apiVersion must not be empty"),
        ({"operation": "Update", "apiVersion": "v1"}, "missing fieldsType in managed fields entry 0"),
        (
            {"operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV2"},
            'invalid fieldsType "FieldsV2" in managed fields entry 0',
        ),
        (
            {"operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"xy": {}}},
            "missing colon: xy",
        ),
        ({"operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "time": "now"}, "invalid time 'now'"),
    ],
)
def test_entry_decoding_errors(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ManagedFieldsError, match=message):
        validate_managed_fields([entry])


def test_entries_sort_by_operation_time_manager_version_subresource() -> None:
    managed = Managed()
    keys = [
        ManagerKey("b", "Update", "v1"),
        ManagerKey("a", "Update", "v2"),
        ManagerKey("a", "Update", "v1", "status"),
        ManagerKey("a", "Update", "v1"),
        ManagerKey("z", "Apply"),
    ]
    for key in keys:
        managed.sets[key] = Owned(FieldSet.of(make_path("data")), key.api_version or "v1", key.operation == "Apply")
        managed.times[key] = T1
    managed.times[ManagerKey("b", "Update", "v1")] = "2023-12-31T23:59:59Z"
    order = [(e["manager"], e["apiVersion"], e.get("subresource", "")) for e in encode(managed)]
    assert order == [("z", "v1", ""), ("b", "v1", ""), ("a", "v1", ""), ("a", "v1", "status"), ("a", "v2", "")]


def test_subresource_writes_ignore_managed_fields_in_the_request() -> None:
    live = update_managed_fields(None, configmap(a="1"), manager="creator", operation_time=T1, schema=CONFIGMAP)
    new = configmap(a="1")
    new["metadata"]["managedFields"] = []
    result = update_managed_fields(live, new, manager="x", operation_time=T2, subresource="status", schema=CONFIGMAP)
    assert result["metadata"]["managedFields"] == live["metadata"]["managedFields"]


def test_an_update_that_does_not_fit_the_schema_keeps_the_live_managed_fields() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}]}}
    live = update_managed_fields(None, pod, manager="creator", operation_time=T1, schema=POD)
    broken = copy.deepcopy(pod)
    broken["spec"]["containers"].append("not-a-container")
    result = update_managed_fields(live, broken, manager="x", operation_time=T2, schema=POD)
    assert result["metadata"]["managedFields"] == live["metadata"]["managedFields"]
    assert result["spec"] == broken["spec"]


def test_dropping_an_applied_field_keeps_unowned_defaults_around_it() -> None:
    deployment = Schema.named("io.k8s.api.apps.v1.Deployment")
    config = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 2}}
    created = apply(None, config, manager="kubectl", force=False, operation_time=T1, schema=deployment)
    created["spec"]["strategy"] = {"type": "RollingUpdate"}
    config["spec"] = {"paused": True}
    result = apply(created, config, manager="kubectl", force=False, operation_time=T2, schema=deployment)
    assert result["spec"] == {"strategy": {"type": "RollingUpdate"}, "paused": True}


_names = st.sampled_from(["a", "b", "c"])
_container = st.fixed_dictionaries(
    {"name": _names, "image": st.sampled_from(["x", "y"])},
    optional={
        "args": st.lists(st.sampled_from(["-v", "-q"]), max_size=2),
        "env": st.lists(
            st.fixed_dictionaries({"name": _names, "value": st.sampled_from(["1", "2"])}),
            max_size=2,
            unique_by=lambda env: env["name"],
        ),
        "ports": st.lists(
            st.fixed_dictionaries(
                {"containerPort": st.sampled_from([80, 443])}, optional={"protocol": st.sampled_from(["TCP", "UDP"])}
            ),
            max_size=2,
            unique_by=lambda port: (port["containerPort"], port.get("protocol", "TCP")),
        ),
    },
)
_pods = st.builds(
    lambda labels, finalizers, containers: {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": labels, "finalizers": finalizers},
        "spec": {"containers": containers},
    },
    st.dictionaries(_names, _names, max_size=2),
    st.lists(_names, max_size=2, unique=True),
    st.lists(_container, max_size=3, unique_by=lambda container: container["name"]),
)


@settings(max_examples=60, deadline=None)
@given(other=st.one_of(st.none(), _pods), config=_pods, by_update=st.booleans())
def test_applying_the_same_configuration_twice_changes_nothing(
    other: dict[str, Any] | None, config: dict[str, Any], by_update: bool
) -> None:
    common = {"schema": POD, "ignored": default_ignored(status_subresource=True)}
    live = None
    if other is not None and by_update:
        live = update_managed_fields(None, other, manager="other", operation_time=T1, **common)
    elif other is not None:
        live = apply(None, other, manager="other", force=False, operation_time=T1, **common)
    first = apply(live, config, manager="me", force=True, operation_time=T2, **common)
    second = apply(first, config, manager="me", force=False, operation_time="2024-01-03T00:00:00Z", **common)
    assert second == first


@settings(max_examples=40, deadline=None)
@given(pod=_pods, edited=_pods)
def test_an_update_repeating_the_stored_object_changes_nothing(pod: dict[str, Any], edited: dict[str, Any]) -> None:
    created = update_managed_fields(None, pod, manager="creator", operation_time=T1, schema=POD)
    stored = update_managed_fields(created, edited, manager="editor", operation_time=T2, schema=POD)
    again = copy.deepcopy(stored)
    del again["metadata"]["managedFields"]
    assert (
        update_managed_fields(stored, again, manager="other", operation_time="2024-01-03T00:00:00Z", schema=POD)
        == stored
    )


def test_update_rejects_a_metadata_that_is_not_an_object() -> None:
    with pytest.raises(TypedError, match=r"^\.metadata: expected map, got &\{\[a\]\}$"):
        update_managed_fields(None, {"metadata": ["a"]}, manager="m", operation_time=T1, schema=CONFIGMAP)


def test_schemaless_apply_rejects_a_metadata_that_is_not_an_object() -> None:
    config = {"apiVersion": "x/v1", "kind": "X", "metadata": [1, 1]}
    with pytest.raises(TypedError, match=r"^\.metadata: expected map, got &\{\[1 1\]\}$"):
        apply(None, config, manager="m", force=False, operation_time=T1, schema=None)
