from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api import columns as registry
from svc.api.columns import columns_for
from svc.wire.views import cells

ALL_COLUMN_SETS = sorted(registry._COLUMNS.items())
TYPES = {"string", "integer", "boolean", "number", "date"}
UPSTREAM_EMPTY_DESCRIPTIONS = {
    (("node.k8s.io", "RuntimeClass"), "Handler"),
    (("coordination.k8s.io", "LeaseCandidate"), "BinaryVersion"),
    (("coordination.k8s.io", "LeaseCandidate"), "EmulationVersion"),
}

_KEYS = [
    "metadata", "spec", "status", "name", "containers", "initContainers", "containerStatuses",
    "initContainerStatuses", "state", "waiting", "terminated", "running", "lastState", "conditions", "type",
    "reason", "ports", "subsets", "addresses", "selector", "matchLabels", "matchExpressions", "labels",
    "template", "replicas", "clusterIPs", "externalIPs", "loadBalancer", "ingress", "hard", "used",
    "subjects", "roleRef", "series", "involvedObject", "regarding", "creationTimestamp", "deletionTimestamp",
    "key", "operator", "values", "kind", "exitCode", "restartCount", "ip", "port", "nodePort", "data", "holderIdentity",
    "metrics", "currentMetrics", "resource", "target", "current", "averageValue", "averageUtilization", "rules",
    "host", "tls", "parameters", "podSelector", "endpoints", "cidrs", "parentRef", "minAvailable", "ownerReferences",
    "controller", "tokenRequests", "paramRef", "paramKind", "distinguisherMethod", "limited", "limitResponse",
    "queuing", "allocation", "reservedFor", "pool", "storageVersions", "service", "webhooks",
    "targetCPUUtilizationPercentage",
]  # fmt: skip
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["", "True", "Always", "2024-05-01T11:00:00Z"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), children, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize(
    ("key", "columns"), ALL_COLUMN_SETS, ids=[f"{group}/{kind}" for (group, kind), _ in ALL_COLUMN_SETS]
)
def test_every_column_set_names_each_object_and_uses_table_types(key: tuple[str, str], columns: Any) -> None:
    names = [column for column in columns if column.name == "Name"]
    assert len(names) == 1
    assert names[0].format == "name"
    assert {column.type for column in columns} <= TYPES
    assert all(column.description or (key, column.name) in UPSTREAM_EMPTY_DESCRIPTIONS for column in columns)
    assert all(column.priority in (0, 1) for column in columns)


def test_only_volume_attachments_mark_a_second_column_as_a_name() -> None:
    """Upstream gives VolumeAttachment's `Attacher` the `name` format too; no other set does that."""
    marked = {key for key, columns in ALL_COLUMN_SETS if sum(column.format == "name" for column in columns) > 1}
    assert marked == {("storage.k8s.io", "VolumeAttachment")}


@pytest.mark.parametrize(("group", "kind"), [("", "Unknown"), ("apps", "Pod"), ("example.com", "Widget")])
def test_kinds_without_a_column_set_get_none(group: str, kind: str) -> None:
    assert columns_for(group, kind) is None


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ALL_COLUMN_SETS), json_values)
def test_cells_of_any_json_shaped_object_are_plain_values(entry: Any, obj: Any) -> None:
    _, columns = entry
    for value in cells(obj if isinstance(obj, dict) else {"spec": obj}, columns):
        assert value is None or isinstance(value, str | int | bool)
