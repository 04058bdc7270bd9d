"""The CEL type of a built-in kind's objects, from its upstream OpenAPI definition.

The definitions refer to each other by `$ref`; this expands them into the structural form
`svc.machinery.cel.schema_types` types (as a CRD's schema is), once per definition. A definition
that refers back to itself (JSONSchemaProps) is `dyn` where it recurs; unions of scalars
(IntOrString, Quantity) are int-or-string, which CEL types as `dyn` too.
"""

from __future__ import annotations

import functools
from typing import Any

from svc.api.schemas import Schema, schema_for
from svc.machinery.cel.schema_types import schema_type
from svc.machinery.cel.types import Type


def _structural(schema: Schema, seen: frozenset[str]) -> dict[str, Any]:
    if schema.name:
        if schema.name in seen:
            return {}
        seen = seen | {schema.name}
    kind = schema.type
    raw = schema.raw
    if kind == "object":
        return {
            "type": "object",
            "properties": {name: _structural(sub, seen) for name, sub in schema.properties.items()},
        }
    if kind == "map":
        assert schema.values is not None
        return {"type": "object", "additionalProperties": _structural(schema.values, seen)}
    if kind == "array":
        items = schema.items
        return {"type": "array", "items": _structural(items, seen) if items is not None else {}}
    if kind == "scalar":
        return {"x-kubernetes-int-or-string": True}
    if kind in ("string", "integer", "number", "boolean"):
        return {"type": kind, "format": raw["format"]} if "format" in raw else {"type": kind}
    return {}


@functools.cache
def object_type(definition: str) -> Type | None:
    """The type of a definition's objects (`io.k8s.api.apps.v1.Deployment`), None when unknown."""
    schema = schema_for(definition)
    if schema is None:
        return None
    return schema_type(_structural(schema, frozenset()), definition)
