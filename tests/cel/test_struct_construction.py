"""Message construction (`Object{...}`, `JSONPatch{...}`) for mutating admission policies, and
`jsonpatch.escapeKey`."""

from __future__ import annotations

import pytest

from svc.machinery.cel import CelError, Environment
from svc.machinery.cel.checker import check
from svc.machinery.cel.types import DYN

POLICY_ENV = Environment(["object", "Object", "JSONPatch"])


def test_nested_object_construction_builds_the_apply_configuration() -> None:
    expression = 'Object{metadata: Object.metadata{labels: {"team": object.metadata.name}}}'
    result = POLICY_ENV.compile(expression).evaluate({"object": {"metadata": {"name": "web"}}})
    assert result == {"metadata": {"labels": {"team": "web"}}}


def test_optional_fields_are_left_out_when_empty() -> None:
    expression = "Object{?spec: optional.none(), ?metadata: optional.of(Object.metadata{name: 'x'})}"
    assert POLICY_ENV.compile(expression).evaluate({}) == {"metadata": {"name": "x"}}


def test_json_patch_operations_and_escaped_keys() -> None:
    expression = "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b~c'), value: 'v'}]"
    assert POLICY_ENV.compile(expression).evaluate({}) == [
        {"op": "add", "path": "/metadata/labels/a~1b~0c", "value": "v"}
    ]


def test_construction_is_typed_by_its_name() -> None:
    assert str(check("Object.spec{replicas: 1}", {"Object": DYN})) == "Object.spec"
    assert str(check("[JSONPatch{op: 'remove', path: '/a'}]", {})) == "list(JSONPatch)"


def test_types_the_environment_does_not_declare_are_undeclared_references() -> None:
    with pytest.raises(CelError, match="undeclared reference to 'Object'"):
        Environment(["self"]).compile("Object{a: 1}")
