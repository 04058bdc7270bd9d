"""CRD validation never raises, whatever JSON replaces any member of a rich CRD: bad input gets
field errors, never a 500."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from svc.api.brand import SVC
from svc.api.validation import rules_for
from tests.api.validation.test_robustness import JSON, _paths, _replaced

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 30}}},
        "spec": {
            "type": "object",
            "required": ["size"],
            "x-kubernetes-validations": [
                {"rule": "self.size <= 10", "message": "too big", "fieldPath": ".size", "reason": "FieldValueInvalid"},
                {"rule": "self.size >= oldSelf.size", "messageExpression": "'was ' + string(oldSelf.size)"},
            ],
            "properties": {
                "size": {"type": "integer", "minimum": 0, "default": 1},
                "mode": {"type": "string", "enum": ["a", "b"], "pattern": "^[ab]$"},
                "ports": {
                    "type": "array",
                    "maxItems": 4,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
                },
                "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                },
            },
        },
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
    },
}
CRD: dict[str, Any] = {
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {
            "plural": "widgets",
            "singular": "widget",
            "kind": "Widget",
            "listKind": "WidgetList",
            "shortNames": ["wd"],
        },
        "conversion": {
            "strategy": "Webhook",
            "webhook": {"clientConfig": {"url": "https://hook.example.com/c"}, "conversionReviewVersions": ["v1"]},
        },
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": SCHEMA},
                "subresources": {
                    "status": {},
                    "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size"},
                },
                "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
                "selectableFields": [{"jsonPath": ".spec.mode"}],
            }
        ],
    },
    "status": {"storedVersions": ["v1"]},
}


def test_the_fixture_is_valid() -> None:
    rules = rules_for("apiextensions.k8s.io", "CustomResourceDefinition", SVC)
    assert rules is not None
    assert rules.validate(copy.deepcopy(CRD)) == []


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_crd_validation_never_raises(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(_paths(CRD)))
    broken = _replaced(CRD, path, data.draw(JSON))
    rules = rules_for("apiextensions.k8s.io", "CustomResourceDefinition", SVC)
    assert rules is not None
    for error in rules.validate(broken) + rules.validate_update(broken, CRD) + rules.validate_update(CRD, broken):
        assert str(error)
