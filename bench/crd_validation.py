"""Validating a typical custom resource against its CRD schema, in process.

The schema is a workload CRD's: ten spec properties (integers with bounds, a patterned image, an
enum, a map-type list of ports, a set of tags, a map of strings, a nested object) and three
`x-kubernetes-validations` rules. It is compiled once (`CustomResourceSchema`), as the strategy
does per CRD revision; each object is then pruned, defaulted and validated as on create, and
validated against an old copy with one changed field as on update (ratcheting compares them).
The object is the 2 KB widget of the `cel` scenario, which passes its factory in.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any, Final

from svc.api.crd.schema import CustomResourceSchema

RULES: Final = (
    {"rule": "self.replicas <= self.maxReplicas", "message": "replicas must not exceed maxReplicas"},
    {"rule": "self.minReplicas <= self.replicas"},
    {"rule": "self.ports.all(p, p.port > 0)", "messageExpression": "'bad port in ' + self.image"},
)
_PORT: Final = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "maxLength": 15},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535},
        "protocol": {"type": "string", "enum": ["TCP", "UDP", "SCTP"], "default": "TCP"},
    },
}
SCHEMA: Final = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "x-kubernetes-validations": list(RULES),
            "required": ["replicas", "image"],
            "properties": {
                "replicas": {"type": "integer", "minimum": 0, "maximum": 100},
                "minReplicas": {"type": "integer", "minimum": 0, "default": 1},
                "maxReplicas": {"type": "integer", "minimum": 1, "default": 10},
                "image": {"type": "string", "pattern": "^[a-z0-9./:-]+$", "maxLength": 256},
                "ports": {
                    "type": "array",
                    "maxItems": 32,
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": _PORT,
                },
                "tags": {
                    "type": "array",
                    "maxItems": 16,
                    "x-kubernetes-list-type": "set",
                    "items": {"type": "string", "maxLength": 32},
                },
                "paused": {"type": "boolean"},
                "mode": {"type": "string", "enum": ["Auto", "Manual"], "default": "Auto"},
                "selector": {"type": "object", "additionalProperties": {"type": "string"}},
                "resources": {
                    "type": "object",
                    "properties": {"cpu": {"x-kubernetes-int-or-string": True}, "memory": {"type": "string"}},
                },
            },
        },
    },
}
OBJECTS: Final = 2_000
REPEATS: Final = 5


def _schema() -> CustomResourceSchema:
    crd = {
        "metadata": {"uid": "bench", "resourceVersion": "1"},
        "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": SCHEMA}}]},
    }
    return CustomResourceSchema.for_version(crd, "v1")


def _best(step: Any, objects: list[Any], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for item in objects:
            step(item)
        best = min(best, (time.perf_counter() - started) / len(objects))
    return best


def measure(make: Callable[[int], dict[str, Any]], count: int = OBJECTS, repeats: int = REPEATS) -> dict[str, float]:
    """Best seconds per object of create (prune + default + validate) and update validation."""
    schema = _schema()
    objects = [make(i) for i in range(count)]

    def create(obj: dict[str, Any]) -> None:
        obj = copy.deepcopy(obj)
        schema.prune(obj)
        schema.apply_defaults(obj)
        if schema.validate(obj):
            raise AssertionError(schema.validate(obj))

    def validate(obj: dict[str, Any]) -> None:
        if schema.validate(obj):
            raise AssertionError(schema.validate(obj))

    pairs = []
    for obj in objects:
        schema.apply_defaults(obj)
        old = copy.deepcopy(obj)
        old["spec"]["replicas"] = 2
        pairs.append((obj, old))

    def update(pair: tuple[dict[str, Any], dict[str, Any]]) -> None:
        if schema.validate(*pair):
            raise AssertionError(schema.validate(*pair))

    return {
        "crd validate": _best(validate, objects, repeats),
        "crd create path": _best(create, objects, repeats),
        "crd validate update": _best(update, pairs, repeats),
    }
