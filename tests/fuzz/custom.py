"""A custom resource definition whose schema has every structural feature a value can trip over.

Int-or-string, preserved unknown fields, an embedded resource, map and set lists, a granular map,
nullable members, defaults, enums, formats, bounds and CEL rules (a transition rule among them), the
status and scale subresources, printer columns and a selectable field: each is a place where a
random value must meet a 400/422, never a 500.
"""

from __future__ import annotations

import time
from typing import Any

from tests.fuzz.probe import Probe

GROUP = "fuzz.example.com"
CRDS = "/apis/apiextensions.svc/v1/customresourcedefinitions"
GADGETS = f"/apis/{GROUP}/v1/namespaces/fuzz/gadgets"

SPEC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-kubernetes-validations": [
        {"rule": "self.replicas <= 50", "message": "too many", "fieldPath": ".replicas", "reason": "FieldValueInvalid"},
        {"rule": "!has(oldSelf.mode) || self.mode == oldSelf.mode", "messageExpression": "'was ' + oldSelf.mode"},
        {"rule": "self.ports.all(p, p.port > 0)"},
    ],
    "required": ["replicas"],
    "properties": {
        "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1},
        "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
        "size": {"x-kubernetes-int-or-string": True, "pattern": "^[0-9]+[A-Za-z]*$"},
        "ratio": {"type": "number", "maximum": 1.5, "exclusiveMaximum": True, "nullable": True},
        "enabled": {"type": "boolean"},
        "since": {"type": "string", "format": "date-time"},
        "blob": {"type": "string", "format": "byte", "maxLength": 64},
        "name": {"type": "string", "maxLength": 10, "pattern": "^[a-z]+$"},
        "ports": {
            "type": "array",
            "maxItems": 4,
            "default": [],
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name", "protocol"],
            "items": {
                "type": "object",
                "required": ["name", "port"],
                "properties": {
                    "name": {"type": "string"},
                    "protocol": {"type": "string", "default": "TCP"},
                    "port": {"type": "integer", "maximum": 65535},
                },
            },
        },
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        "labels": {
            "type": "object",
            "x-kubernetes-map-type": "granular",
            "maxProperties": 5,
            "additionalProperties": {"type": "string"},
        },
        "settings": {"type": "object", "x-kubernetes-map-type": "atomic", "x-kubernetes-preserve-unknown-fields": True},
        "extra": {"x-kubernetes-preserve-unknown-fields": True},
        "template": {
            "type": "object",
            "x-kubernetes-embedded-resource": True,
            "x-kubernetes-preserve-unknown-fields": True,
        },
        "choice": {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
        },
    },
}
STATUS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "replicas": {"type": "integer"},
        "selector": {"type": "string"},
        "conditions": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"],
            "items": {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"type": "string"}, "status": {"type": "string"}},
            },
        },
    },
}
CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.svc/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"gadgets.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {"spec": SPEC_SCHEMA, "status": STATUS_SCHEMA},
                    }
                },
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas",
                        "labelSelectorPath": ".status.selector",
                    },
                },
                "selectableFields": [{"jsonPath": ".spec.mode"}, {"jsonPath": ".spec.enabled"}],
                "additionalPrinterColumns": [
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                    {"name": "Size", "type": "string", "jsonPath": ".spec.size"},
                    {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio"},
                    {"name": "Since", "type": "date", "jsonPath": ".spec.since"},
                    {"name": "On", "type": "boolean", "jsonPath": ".spec.enabled"},
                    {"name": "Extra", "type": "string", "jsonPath": ".spec.extra"},
                    {"name": "Ports", "type": "string", "jsonPath": ".spec.ports[*].name"},
                ],
            }
        ],
    },
}
GADGET: dict[str, Any] = {
    "apiVersion": f"{GROUP}/v1",
    "kind": "Gadget",
    "spec": {
        "replicas": 2,
        "mode": "fast",
        "size": "10Gi",
        "ratio": 0.5,
        "enabled": True,
        "since": "2026-01-01T00:00:00Z",
        "blob": "aGVsbG8=",
        "name": "abc",
        "ports": [{"name": "http", "port": 80}],
        "tags": ["a", "b"],
        "matrix": [[1, 2], [3]],
        "labels": {"k": "v"},
        "settings": {"any": {"thing": [1, "x"]}},
        "extra": {"free": True},
        "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t"}, "data": {"k": "v"}},
        "choice": {"a": "x"},
    },
    "status": {"replicas": 1, "selector": "app=web", "conditions": [{"type": "Ready", "status": "True"}]},
}


def install(probe: Probe, seconds: float = 20.0) -> None:
    """Create the CRD and wait (bounded) until its resource is served."""
    created = probe.send_json("POST", CRDS, CRD)
    assert created.status == 201, created.body
    deadline = time.monotonic() + seconds
    while probe.send_json("GET", GADGETS).status != 200:
        assert time.monotonic() < deadline, "the gadgets resource was not served in time"
        time.sleep(0.05)
