"""Generate svc/api/zero_values.json: the status fields upstream's Go types write with their zero value.

Go's JSON encoder writes a field without `omitempty` even when it holds its zero value; upstream's
OpenAPI generator lists exactly those fields (minus the ones marked `+optional`) in a definition's
`required`. A strict client (the official Python client with client-side validation) refuses an
object whose required field is missing, so the server must write them as Go would.

The rule this table encodes (applied by `svc/api/zero_values.py`):

- Only the `status` tree of a kind is filled. Required fields elsewhere (`containers`, a port's
  `port`) are input the client must supply; validation reports them, nothing invents them.
- Inside a status object that is present, a missing required scalar gets Go's zero value: 0, false,
  "" (a Quantity: "0"). A required date-time or byte string is left out: Go writes `null` for a zero
  `metav1.Time` or a nil `[]byte`, which carries nothing and no strict client accepts either.
  Required lists and maps are left out for the same reason (Go writes `null` for nil ones).
- A few status scalars are marked `+optional` (so not `required`) yet have no `omitempty`: Go still
  writes them. The document cannot show them; `WRITTEN_OPTIONALS` lists them from upstream's Go types.
- A required nested object is created empty (then filled): a Go struct without `omitempty`.
- An optional nested object is never created, with the exceptions in `VALUE_STRUCTS`: the OpenAPI v2
  document does not say whether a field is a pointer (`*T`, absent when nil) or a value struct (`T`,
  written as `{}` even with `omitempty`, as encoding/json never omits a struct). Those few value
  structs of status types are listed by hand from upstream's Go types (`k8s.io/api`, release-1.36);
  the generator checks each against the document.
- Objects inside lists and maps are filled the same way, when present.

Usage: python tools/gen_zero_values.py [path/to/swagger.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Beside the checkout (the lead's), or beside the directory of worktrees (a helper's).
_SWAGGER = Path("shared", "upstream-openapi", "swagger-v1.36.json")
DEFAULT_SWAGGER = next(
    (base / _SWAGGER for base in (ROOT.parent, ROOT.parent.parent) if (base / _SWAGGER).exists()),
    ROOT.parent / _SWAGGER,
)
RESOURCE_TABLE = ROOT / "svc" / "api" / "resource_table.json"
OUTPUT = ROOT / "svc" / "api" / "zero_values.json"

# Status fields of value-struct type with `omitempty` (Go writes `{}`), as (definition, property).
VALUE_STRUCTS: frozenset[tuple[str, str]] = frozenset(
    {
        ("io.k8s.api.core.v1.ServiceStatus", "loadBalancer"),
        ("io.k8s.api.networking.v1.IngressStatus", "loadBalancer"),
        ("io.k8s.api.core.v1.NodeStatus", "daemonEndpoints"),
        ("io.k8s.api.core.v1.NodeDaemonEndpoints", "kubeletEndpoint"),
        ("io.k8s.api.core.v1.NodeStatus", "nodeInfo"),
        ("io.k8s.api.core.v1.ContainerStatus", "state"),
        ("io.k8s.api.core.v1.ContainerStatus", "lastState"),
    }
)

# Optional status scalars without `omitempty` (Go writes their zero), as (definition, property).
WRITTEN_OPTIONALS: frozenset[tuple[str, str]] = frozenset(
    {
        ("io.k8s.api.policy.v1.PodDisruptionBudgetStatus", "disruptionsAllowed"),
        ("io.k8s.api.policy.v1.PodDisruptionBudgetStatus", "currentHealthy"),
        ("io.k8s.api.policy.v1.PodDisruptionBudgetStatus", "desiredHealthy"),
        ("io.k8s.api.policy.v1.PodDisruptionBudgetStatus", "expectedPods"),
        ("io.k8s.api.apps.v1.StatefulSetStatus", "availableReplicas"),
    }
)

_PREFIX = "#/definitions/"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_SCALAR_ZERO: dict[str, Any] = {"integer": 0, "number": 0, "boolean": False, "string": ""}
_NULL_FORMATS = frozenset({"date-time", "byte"})


def _zero(definitions: dict, schema: dict) -> tuple[bool, Any]:
    """(whether Go's zero value of a required field is worth writing, the value)."""
    ref = schema.get("$ref", "")[len(_PREFIX) :]
    if ref == _QUANTITY:
        return True, "0"
    if ref == _INT_OR_STRING:
        return True, 0
    target = definitions.get(ref, schema) if ref else schema
    kind = target.get("type")
    if kind in _SCALAR_ZERO and target.get("format") not in _NULL_FORMATS:
        return True, _SCALAR_ZERO[kind]
    return False, None


def _object_ref(definitions: dict, schema: dict) -> str:
    """The definition of an object-typed schema (a struct), or ""."""
    ref = schema.get("$ref", "")[len(_PREFIX) :]
    target = definitions.get(ref, {})
    return ref if target.get("type") == "object" and "properties" in target else ""


def shape(definitions: dict, name: str, seen: frozenset[str] = frozenset()) -> dict:
    """The fill plan of one struct: zeros for its scalars, structs to create, plans for its children.

    Empty parts are left out, so an empty result means nothing to do.
    """
    if name in seen:
        return {}
    seen = seen | {name}
    definition = definitions[name]
    required = set(definition.get("required", ()))
    plan: dict[str, dict] = {"zero": {}, "create": {}, "struct": {}, "items": {}, "values": {}}
    for key, schema in sorted(definition.get("properties", {}).items()):
        struct = _object_ref(definitions, schema)
        if struct:
            child = shape(definitions, struct, seen)
            if key in required or (name, key) in VALUE_STRUCTS:
                plan["create"][key] = child
            elif child:
                plan["struct"][key] = child
            continue
        if key in required or (name, key) in WRITTEN_OPTIONALS:
            worth, value = _zero(definitions, schema)
            if worth:
                plan["zero"][key] = value
            continue
        for container, inner in (("items", schema.get("items")), ("values", schema.get("additionalProperties"))):
            element = _object_ref(definitions, inner) if isinstance(inner, dict) else ""
            if element and (child := shape(definitions, element, seen)):
                plan[container][key] = child
    return {part: entries for part, entries in plan.items() if entries}


def generate(swagger: dict, resources: list[dict]) -> dict[str, dict]:
    definitions = swagger["definitions"]
    listed = VALUE_STRUCTS | WRITTEN_OPTIONALS
    missing = [pair for pair in listed if pair[1] not in definitions.get(pair[0], {}).get("properties", {})]
    if missing:
        raise SystemExit(f"fields listed by hand but not in the document: {sorted(missing)}")
    table: dict[str, dict] = {}
    for name in sorted({row["definition"] for row in resources if row["definition"]}):
        status = definitions.get(name, {}).get("properties", {}).get("status")
        struct = _object_ref(definitions, status) if status else ""
        if struct and (plan := shape(definitions, struct)):
            table[name] = plan
    return table


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SWAGGER
    table = generate(json.loads(source.read_text()), json.loads(RESOURCE_TABLE.read_text()))
    OUTPUT.write_text(json.dumps(table, indent=None, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"wrote the status zero values of {len(table)} kinds to {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
