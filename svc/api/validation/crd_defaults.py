"""The defaults of a CRD version's schema, as upstream's `ValidateDefaults`: each is pruned-equal,
its embedded resources well formed, and valid by its node's schema and rules (the root counts as an
embedded resource). Defaults inside TypeMeta/ObjectMeta are forbidden elsewhere; they are only
value-checked here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from svc.api.crd.cel_rules import NIL_PATH, compile_rules
from svc.api.crd.pruning import prune_value
from svc.api.crd.structural import structural
from svc.api.crd.value_validation import COMPOSITE_FIELD, compile_schema, embedded_resource_errors
from svc.api.validation.crd_structural import mapping_of
from svc.machinery.field_errors import FieldError, invalid

Schema = Mapping[str, Any]
META_FIELDS: Final = frozenset({"metadata", "kind", "apiVersion"})


def validate_defaults(schema: Schema, path: str, require_pruned: bool) -> list[FieldError]:
    """Upstream's `ValidateDefaults`: each default is pruned-equal and valid by its node's schema and
    rules (the root counts as an embedded resource)."""
    root = {**schema, "x-kubernetes-embedded-resource": True}
    return _defaults(root, path, inside_meta=False, require_pruned=require_pruned)


def _defaults(schema: Schema, path: str, *, inside_meta: bool, require_pruned: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    embedded = schema.get("x-kubernetes-embedded-resource") is True
    if embedded:
        inside_meta = False
    if "default" in schema and schema["default"] is not None:
        errors += _default_errors(schema, path, inside_meta=inside_meta, require_pruned=require_pruned)
    if isinstance(schema.get("items"), Mapping):
        errors += _defaults(schema["items"], f"{path}.items", inside_meta=inside_meta, require_pruned=require_pruned)
    for name, sub in mapping_of(schema.get("properties")).items():
        sub_meta = inside_meta or (embedded and name in META_FIELDS)
        where = f"{path}.properties[{name}]"
        errors += _defaults(mapping_of(sub), where, inside_meta=sub_meta, require_pruned=require_pruned)
    return errors


def _default_errors(schema: Schema, path: str, *, inside_meta: bool, require_pruned: bool) -> list[FieldError]:
    default = schema["default"]
    where = f"{path}.default"
    errors: list[FieldError] = []
    node = structural(schema)
    if require_pruned and not inside_meta:
        pruned = copy.deepcopy(default)
        prune_value(pruned, node)
        if pruned != default:
            errors.append(invalid(where, default, "must not have unknown fields"))
    if node.embedded_resource and isinstance(default, dict):
        meta_errors = embedded_resource_errors(default, "")
        if meta_errors:
            return errors + [_under(where, error) for error in meta_errors]
    value_errors = compile_schema(schema).validate(default, "")
    if value_errors:
        return errors + [_under(where, error) for error in value_errors]
    return errors + [_under(where, error) for error in compile_rules(node).validate(default)]


def _under(prefix: str, error: FieldError) -> FieldError:
    """An error found inside a default, re-rooted below the default's path."""
    if error.field == COMPOSITE_FIELD:
        return error
    field = prefix if error.field in ("", NIL_PATH) else f"{prefix}.{error.field}"
    return replace(error, field=field)
