"""Any object the server accepts reads back into the official Python client's models, for every kind.

Hypothesis mutates each kind's minimal valid object (from `tests/builtin_objects.py`): it drops optional
members and adds members the schema declares, with generated values of the declared type. Whatever
the server accepts must deserialise with `ApiClient().deserialize` from GET and from LIST; whatever
it refuses must be refused with a 4xx Status, never a 5xx.

Webhook configurations and APIServices are left out: accepting one makes the server send later
requests to the address it names, and tests only talk to loopback.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from kubernetes import client

from svc.api.resources import Resource
from svc.api.schemas import Schema, schema_for
from svc.testing.harness import RunningServer, in_process_server
from tests.builtin_objects import manifest
from tests.e2e.test_strict_client_kinds import _RESOURCES, _collection, _model

_ROUTING_KINDS = frozenset(("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService"))
_KINDS = [resource for resource in _RESOURCES if resource.kind not in _ROUTING_KINDS]
_SKIPPED_MEMBERS = frozenset(("apiVersion", "kind", "metadata", "status"))
_NAMES = itertools.count()
Obj = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    with in_process_server(tmp_path_factory.mktemp("roundtrip") / "data", "--brand-profile=kubernetes") as running:
        yield running


def _object_nodes(node: Obj, schema: Schema, *, root: bool) -> Iterator[tuple[Obj, Schema, bool]]:
    """Every object member of `node` with its schema (metadata and status are left to other tests)."""
    yield node, schema, root
    for key, value in node.items():
        member = schema.field(key)
        if member is None or (root and key in _SKIPPED_MEMBERS):
            continue
        if isinstance(value, dict) and member.type == "object":
            yield from _object_nodes(value, member, root=False)
        elif isinstance(value, list) and member.items is not None and member.items.type == "object":
            for item in value:
                if isinstance(item, dict):
                    yield from _object_nodes(item, member.items, root=False)


def _zero_has_null(member: Schema | None) -> bool:
    """Whether Go writes the member left out as a struct holding a required list or map as null (a
    LimitRange without `spec` reads `spec: {limits: null}`, upstream as here): the strict models refuse
    that null, from upstream as from us, so such members are not dropped."""
    if member is None or member.type != "object":
        return False
    fields = (member.field(key) for key in member.required)
    return any(field is not None and field.type == "array" for field in fields)


def _value(schema: Schema) -> st.SearchStrategy[Any]:
    enum = schema.raw.get("enum")
    if enum:
        return st.sampled_from([value for value in enum if value is not None])
    return {
        "string": st.text("abcdefghijklmnopqrstuvwxyz0123456789-./", min_size=0, max_size=12),
        "integer": st.integers(-3, 2_000),
        "boolean": st.booleans(),
        "number": st.floats(-10, 10, allow_nan=False),
    }[schema.type]


_SCALARS = frozenset(("string", "integer", "boolean", "number"))


@st.composite
def _mutated(draw: st.DrawFn) -> tuple[Resource, Obj]:
    resource = draw(st.sampled_from(_KINDS))
    obj = manifest(resource.api_version, resource.kind, name=f"m{next(_NAMES)}")
    schema = schema_for(resource.definition)
    assert schema is not None
    for _ in range(draw(st.integers(1, 4))):
        node, node_schema, root = draw(st.sampled_from(list(_object_nodes(obj, schema, root=True))))
        skipped = _SKIPPED_MEMBERS if root else frozenset()
        if draw(st.booleans()):
            optional = sorted(
                key
                for key in node
                if key not in node_schema.required and key not in skipped and not _zero_has_null(node_schema.field(key))
            )
            if optional:
                del node[draw(st.sampled_from(optional))]
            continue
        absent = sorted(
            key
            for key, member in node_schema.properties.items()
            if key not in node and key not in skipped and member.type in _SCALARS
        )
        if absent:
            key = draw(st.sampled_from(absent))
            node[key] = draw(_value(node_schema.properties[key]))
    return resource, obj


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_mutated())
def test_accepted_objects_read_as_the_client_models(server: RunningServer, case: tuple[Resource, Obj]) -> None:
    resource, obj = case
    rest = server.client()
    created = rest.request("POST", _collection(resource), body=obj)
    assert created.status < 500, created.body
    event(f"status {created.status}")
    if created.status >= 300:
        assert orjson.loads(created.body)["kind"] == "Status"
        return
    models = client.ApiClient()
    name = orjson.loads(created.body)["metadata"]["name"]
    got = rest.request("GET", f"{_collection(resource)}/{name}")
    models.deserialize(got.body.decode(), _model(resource.definition), "application/json")
    listed = rest.request("GET", _collection(resource), params={"fieldSelector": f"metadata.name={name}"})
    items = models.deserialize(listed.body.decode(), _model(resource.definition + "List"), "application/json").items
    assert [item.metadata.name for item in items] == [name]
