"""Validation of a CRD version's `openAPIV3Schema`, as upstream's apiextensions validation does it.

Three passes, in upstream's order and with its texts and paths (`properties[spec].type`):

1. structural schema rules (`ValidateStructural`, sorted by text as upstream sorts them): every
   specified node has a type unless int-or-string or preserve-unknown, arrays have items, nothing
   but value validations under `allOf`/`anyOf`/`oneOf`/`not` and those only on fields also declared
   outside them, metadata restricted to name/generateName at the root, no additionalProperties at
   the root or on embedded resources;
2. when the schema is structural, its defaults (pruned-equal, valid by the schema and its rules);
3. the OpenAPI subset CRDs allow (no `$ref`, `id`, `patternProperties`, ...), list and map types,
   `x-kubernetes-validations` (static checks, then compiled against the node's type with their
   estimated cost, multiplied by how often the rule can run, under upstream's limits).

Schemas arrive as JSON; a member of the wrong JSON type is read as absent (strict decoding upstream
refuses such bodies before validation).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from svc.api.crd.cel_rules import compile_rules
from svc.api.crd.pruning import prune_value
from svc.api.crd.structural import structural
from svc.api.crd.value_validation import COMPOSITE_FIELD, compile_schema, embedded_resource_errors
from svc.api.validation.engine import go_struct
from svc.machinery.cel import CelError
from svc.machinery.cel import types as cel_types
from svc.machinery.cel.estimate import (
    STATIC_ESTIMATED_COST_LIMIT,
    STATIC_ESTIMATED_CRD_COST_LIMIT,
    cost_error_message,
    max_size,
)
from svc.machinery.cel.rules import compile_rule
from svc.machinery.cel.schema_types import schema_type
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required

Schema = Mapping[str, Any]

OPENAPI_TYPES: Final = ("array", "boolean", "integer", "number", "object", "string")
REASONS: Final = ("FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired")
_META_FIELDS: Final = frozenset({"metadata", "kind", "apiVersion"})
_ROOT_FIELDS_WITH_STATUS: Final = {
    "description": "Description",
    "type": "Type",
    "format": "Format",
    "title": "Title",
    "maximum": "Maximum",
    "exclusiveMaximum": "ExclusiveMaximum",
    "minimum": "Minimum",
    "exclusiveMinimum": "ExclusiveMinimum",
    "maxLength": "MaxLength",
    "minLength": "MinLength",
    "pattern": "Pattern",
    "maxItems": "MaxItems",
    "minItems": "MinItems",
    "uniqueItems": "UniqueItems",
    "multipleOf": "MultipleOf",
    "required": "Required",
    "items": "Items",
    "properties": "Properties",
    "externalDocs": "ExternalDocs",
    "example": "Example",
    "x-kubernetes-preserve-unknown-fields": "XPreserveUnknownFields",
    "x-kubernetes-validations": "XValidations",
}
_NEWLINES: Final = re.compile(r"[\n\r]+")
_FIELD_PATH_PART: Final = re.compile(r"\.([a-zA-Z_$][a-zA-Z0-9_$-]*)|\['((?:[^'\\]|\\.)*)'\]")
_RULE_MEMBERS: Final = ("rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf")
_RULE_ZERO: Final = {"rule": "", "message": "", "messageExpression": "", "fieldPath": ""}
_MOST_EXPENSIVE: Final = 4
_ENABLED: Final = "is enabled"
_UNCORRELATABLE: Final = "oldSelf cannot be used on the uncorrelatable portion of the schema within"


@dataclass(frozen=True)
class SchemaOptions:
    """Upstream's `validationOptions` for one version's schema; an update relaxes what the stored
    CRD already violated, so a control-plane upgrade never makes an existing CRD unwritable."""

    status_enabled: bool = False
    require_structural: bool = True
    require_pruned_defaults: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys: bool = True
    require_valid_property_type: bool = True
    suppress_per_expression_cost: bool = False


def _mapping(value: Any) -> Schema:
    return value if isinstance(value, Mapping) else {}


def _schemas(value: Any) -> list[Schema]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _rule_value(rule: Schema) -> Any:
    return go_struct(rule, _RULE_MEMBERS, _RULE_ZERO)


def schema_errors(schema: Any, path: str, options: SchemaOptions) -> list[FieldError]:
    """The errors of one `openAPIV3Schema` at `path` (`spec.versions[0].schema.openAPIV3Schema`)."""
    if not isinstance(schema, Mapping):
        return []
    errors = _root_errors(schema, path, options)
    cel_ok = False
    if options.require_structural:
        structural_errors = validate_structural(schema, path)
        if structural_errors:
            errors += structural_errors
        else:
            default_errors = validate_defaults(schema, path, options.require_pruned_defaults)
            errors += default_errors
            cel_ok = not default_errors
    walker = _Walker(options, cel_ok)
    schema_found, cel_found = walker.walk(schema, path, _Context(root=True), cel=cel_ok)
    errors += schema_found + cel_found
    errors += walker.total_cost_errors(path)
    return errors


def _root_errors(schema: Schema, path: str, options: SchemaOptions) -> list[FieldError]:
    errors: list[FieldError] = []
    if options.status_enabled:
        for key, value in schema.items():
            if value in (None, "", 0, False, [], {}):
                continue
            if key == "type":
                if value != "object":
                    detail = (
                        'only "object" is allowed as the type at the root of the schema if the status subresource '
                        + _ENABLED
                    )
                    errors.append(invalid(f"{path}.type", value, detail))
                    break
                continue
            if key not in _ROOT_FIELDS_WITH_STATUS:
                allowed = " ".join(_ROOT_FIELDS_WITH_STATUS.values())
                detail = f"only [{allowed}] fields are allowed at the root of the schema if the status subresource "
                detail += _ENABLED
                errors.append(invalid(path, dict(schema), detail))
                break
    if schema.get("nullable") is True:
        errors.append(forbidden(f"{path}.nullable", "nullable cannot be true at the root"))
    return errors


# -- structural schema rules -------------------------------------------------------------------------

_ROOT, _ITEM, _FIELD = "root", "item", "field"
_EMPTY_TYPE: Final = {
    _ROOT: "must not be empty at the root",
    _ITEM: "must not be empty for specified array items",
    _FIELD: "must not be empty for specified object fields",
}
_INT_OR_STRING_ANY_OF: Final = [{"type": "integer"}, {"type": "string"}]


def validate_structural(schema: Schema, path: str) -> list[FieldError]:
    """Upstream's `ValidateStructural`: invariants then completeness, sorted by their text."""
    errors = _invariants(schema, _ROOT, path) + _tree_completeness(schema, path)
    return sorted(errors, key=str)


def _tree_completeness(schema: Schema, path: str) -> list[FieldError]:
    """Completeness of the junctors of every structural node."""
    errors = _completeness(schema, schema, path, path)
    if isinstance(schema.get("items"), Mapping):
        errors += _tree_completeness(schema["items"], f"{path}.items")
    if isinstance(schema.get("additionalProperties"), Mapping):
        errors += _tree_completeness(schema["additionalProperties"], f"{path}.additionalProperties")
    for name, sub in _mapping(schema.get("properties")).items():
        errors += _tree_completeness(_mapping(sub), f"{path}.properties[{name}]")
    return errors


def _invariants(schema: Schema, level: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = schema.get("type") if isinstance(schema.get("type"), str) else ""
    items = schema.get("items")
    if kind == "array" and not isinstance(items, Mapping):
        errors.append(required(f"{path}.items", "must be specified"))
    if isinstance(items, Mapping):
        errors += _invariants(items, _ITEM, f"{path}.items")
    properties = _mapping(schema.get("properties"))
    for name, sub in properties.items():
        errors += _invariants(_mapping(sub), _FIELD, f"{path}.properties[{name}]")
    additional = schema.get("additionalProperties")
    if additional is not None and additional is not True:
        if level == _ROOT:
            errors.append(forbidden(f"{path}.additionalProperties", "must not be used at the root"))
        if isinstance(additional, Mapping):
            errors += _invariants(additional, _FIELD, f"{path}.additionalProperties")
    preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
    int_or_string = schema.get("x-kubernetes-int-or-string") is True
    embedded = schema.get("x-kubernetes-embedded-resource") is True
    if int_or_string and preserve:
        detail = "must be false if x-kubernetes-int-or-string is true"
        errors.append(invalid(f"{path}.x-kubernetes-preserve-unknown-fields", True, detail))
    if int_or_string and embedded:
        errors.append(
            invalid(
                f"{path}.x-kubernetes-embedded-resource", True, "must be false if x-kubernetes-int-or-string is true"
            )
        )
    errors += _value_validation(
        schema, level, path, skip_any_of=_int_or_string_any_of(schema), skip_first_all_of=_int_or_string_all_of(schema)
    )
    if embedded and kind != "object":
        detail = "must be object if x-kubernetes-embedded-resource is true"
        errors.append(required(f"{path}.type", detail) if not kind else invalid(f"{path}.type", kind, detail))
    elif not kind and not int_or_string and not preserve:
        errors.append(required(f"{path}.type", _EMPTY_TYPE[level]))
    if embedded and additional is not None:
        errors.append(
            forbidden(f"{path}.additionalProperties", "must not be used if x-kubernetes-embedded-resource is set")
        )
    if level == _ROOT and kind and kind != "object":
        errors.append(invalid(f"{path}.type", kind, "must be object at the root"))
    errors += _meta_property_errors(properties, path, check=level == _ROOT or embedded, root=level == _ROOT)
    if embedded and not preserve and not properties:
        detail = (
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"
        )
        errors.append(required(f"{path}.properties", detail))
    return errors


def _meta_property_errors(properties: Schema, path: str, *, check: bool, root: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    if not check:
        return errors
    for name, wanted in (("kind", "string"), ("apiVersion", "string"), ("metadata", "object")):
        if name in properties:
            found = _mapping(properties[name]).get("type", "")
            if found != wanted:
                errors.append(invalid(f"{path}.properties[{name}].type", found, f"must be {wanted}"))
    if root and "metadata" in properties and not _only_names(_mapping(properties["metadata"])):
        detail = "must not specify anything other than name and generateName, but metadata is implicitly specified"
        errors.append(forbidden(f"{path}.properties[metadata]", detail))
    return errors


def _only_names(metadata: Schema) -> bool:
    """Whether a root metadata schema restricts at most name and generateName (and sets no default)."""
    ignored = {"type", "default", "properties"}
    if any(key not in ignored for key in metadata):
        return False
    properties = _mapping(metadata.get("properties"))
    return set(properties) <= {"name", "generateName"}


def _int_or_string_any_of(schema: Schema) -> bool:
    return schema.get("anyOf") == _INT_OR_STRING_ANY_OF


def _int_or_string_all_of(schema: Schema) -> bool:
    all_of = _schemas(schema.get("allOf"))
    return bool(all_of) and all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF


def _value_validation(
    schema: Schema, level: str, path: str, *, skip_any_of: bool, skip_first_all_of: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not skip_any_of:
        for index, sub in enumerate(_schemas(schema.get("anyOf"))):
            errors += _nested(sub, level, f"{path}.anyOf[{index}]")
    for index, sub in enumerate(_schemas(schema.get("allOf"))):
        skip = skip_first_all_of and index == 0
        errors += _nested(sub, level, f"{path}.allOf[{index}]", skip_any_of=skip)
    for index, sub in enumerate(_schemas(schema.get("oneOf"))):
        errors += _nested(sub, level, f"{path}.oneOf[{index}]")
    if isinstance(schema.get("not"), Mapping):
        errors += _nested(schema["not"], level, f"{path}.not")
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            re.compile(pattern)
        except re.error as err:
            errors.append(invalid(f"{path}.pattern", pattern, f"must be a valid regular expression, but isn't: {err}"))
    return errors


_FORBIDDEN_NESTED: Final = (
    ("type", "must be empty to be structural"),
    ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
)


def _nested(schema: Schema, level: str, path: str, *, skip_any_of: bool = False) -> list[FieldError]:
    """A schema under a logical junctor: value validations only (upstream's NestedValueValidation)."""
    errors = _value_validation(schema, level, path, skip_any_of=skip_any_of, skip_first_all_of=False)
    if isinstance(schema.get("items"), Mapping):
        errors += _nested(schema["items"], level, f"{path}.items")
    properties = _mapping(schema.get("properties"))
    for name, sub in properties.items():
        errors += _nested(_mapping(sub), _FIELD, f"{path}.properties[{name}]")
    for key, detail in _FORBIDDEN_NESTED:
        value = schema.get(key)
        if value not in (None, False, "", []):
            errors.append(forbidden(f"{path}.{key}", detail))
    if "metadata" in properties:
        errors.append(forbidden(f"{path}.properties[metadata]", "must not be specified in a nested context"))
    return errors


def _completeness(value_schema: Schema, structural_schema: Schema | None, s_path: str, v_path: str) -> list[FieldError]:
    """Every field a junctor validates must be declared structurally too."""
    errors: list[FieldError] = []
    junctors: list[tuple[Schema, str]] = []
    if isinstance(value_schema.get("not"), Mapping):
        junctors.append((value_schema["not"], f"{v_path}.not"))
    for key in ("allOf", "anyOf", "oneOf"):
        junctors += [(sub, f"{v_path}.{key}[{i}]") for i, sub in enumerate(_schemas(value_schema.get(key)))]
    if not junctors:
        return errors
    if structural_schema is None:
        return [required(s_path, f"because it is defined in {junctors[0][1]}")]
    for nested, nested_path in junctors:
        errors += _nested_completeness(nested, structural_schema, s_path, nested_path)
    return errors


def _nested_completeness(nested: Schema, structural_schema: Schema, s_path: str, v_path: str) -> list[FieldError]:
    errors = _completeness(nested, structural_schema, s_path, v_path)
    items = nested.get("items")
    if isinstance(items, Mapping):
        target = structural_schema.get("items")
        if not isinstance(target, Mapping):
            errors.append(required(f"{s_path}.items", f"because it is defined in {v_path}.items"))
        else:
            errors += _nested_completeness(items, target, f"{s_path}.items", f"{v_path}.items")
    declared = _mapping(structural_schema.get("properties"))
    for name, sub in _mapping(nested.get("properties")).items():
        here, there = f"{s_path}.properties[{name}]", f"{v_path}.properties[{name}]"
        if name not in declared:
            errors.append(required(here, f"because it is defined in {there}"))
        else:
            errors += _nested_completeness(_mapping(sub), _mapping(declared[name]), here, there)
    return errors


# -- defaults --------------------------------------------------------------------------------------


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
    for name, sub in _mapping(schema.get("properties")).items():
        sub_meta = inside_meta or (embedded and name in _META_FIELDS)
        where = f"{path}.properties[{name}]"
        errors += _defaults(_mapping(sub), where, inside_meta=sub_meta, require_pruned=require_pruned)
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
    field = prefix if error.field in ("", "<nil>") else f"{prefix}.{error.field}"
    return replace(error, field=field)


# -- the OpenAPI subset, list/map types and x-kubernetes-validations ------------------------------------


@dataclass(frozen=True)
class _Context:
    """What a node's position implies: root, inside TypeMeta/ObjectMeta, defaults forbidden (and
    why), oldSelf forbidden (below which path), the rule cardinality so far."""

    root: bool = False
    inside_meta: bool = False
    defaults_forbidden: str | None = None
    uncorrelatable: str | None = None
    cardinality: int = 1


@dataclass
class _Cost:
    path: str
    cost: int


class _Walker:
    def __init__(self, options: SchemaOptions, cel_ok: bool) -> None:
        self.options = options
        self.cel_ok = cel_ok
        self.costs: list[_Cost] = []

    def total_cost_errors(self, path: str) -> list[FieldError]:
        total = sum(item.cost for item in self.costs)
        if total <= STATIC_ESTIMATED_CRD_COST_LIMIT:
            return []
        expensive = sorted(self.costs, key=lambda item: -item.cost)[:_MOST_EXPENSIVE]
        detail = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
        errors = [forbidden(item.path, detail) for item in expensive]
        name = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema"
        return [*errors, forbidden(path, cost_error_message(name, total, STATIC_ESTIMATED_CRD_COST_LIMIT))]

    def walk(self, schema: Schema, path: str, ctx: _Context, *, cel: bool) -> tuple[list[FieldError], list[FieldError]]:
        """(schema errors, CEL errors) of a node and everything below it."""
        found: list[FieldError] = self._standard(schema, path, ctx)
        cel_found: list[FieldError] = []

        def add(result: tuple[list[FieldError], list[FieldError]]) -> None:
            found.extend(result[0])
            cel_found.extend(result[1])

        if schema.get("uniqueItems") is True:
            detail = "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
            found.append(forbidden(f"{path}.uniqueItems", detail))
        properties = _mapping(schema.get("properties"))
        additional = schema.get("additionalProperties")
        if additional is not None:
            if properties and additional is not True:
                found.append(
                    forbidden(
                        f"{path}.additionalProperties", "additionalProperties and properties are mutual exclusive"
                    )
                )
            sub_ctx = replace(ctx, root=False, cardinality=ctx.cardinality * _cardinality(schema))
            if ctx.inside_meta:
                sub_ctx = replace(sub_ctx, defaults_forbidden="inside additionalProperties applying to object metadata")
            if isinstance(additional, Mapping):
                add(self.walk(additional, f"{path}.additionalProperties", sub_ctx, cel=cel))
        embedded = schema.get("x-kubernetes-embedded-resource") is True
        for name, sub in properties.items():
            sub_ctx = replace(ctx, root=False)
            if schema.get("x-kubernetes-map-type") not in (None, "", "granular", "atomic"):
                sub_ctx = _forbid_old_self(sub_ctx, path)
            if (ctx.root or embedded) and name in _META_FIELDS:
                sub_ctx = replace(sub_ctx, inside_meta=True)
                if ctx.root:
                    sub_ctx = replace(sub_ctx, defaults_forbidden=f"in top-level {name}")
            add(self.walk(_mapping(sub), f"{path}.properties[{name}]", sub_ctx, cel=cel))
        plain = replace(ctx, root=False)
        if isinstance(schema.get("not"), Mapping):
            add(self.walk(schema["not"], f"{path}.not", plain, cel=False))
        for key in ("allOf", "oneOf", "anyOf"):
            for index, sub in enumerate(_schemas(schema.get(key))):
                add(self.walk(sub, f"{path}.{key}[{index}]", plain, cel=False))
        for name, sub in _mapping(schema.get("definitions")).items():
            add(self.walk(_mapping(sub), f"{path}.definitions[{name}]", plain, cel=False))
        items = schema.get("items")
        if isinstance(items, Mapping):
            sub_ctx = replace(ctx, root=False, cardinality=ctx.cardinality * _cardinality(schema))
            if schema.get("x-kubernetes-list-type") != "map":
                sub_ctx = _forbid_old_self(sub_ctx, path)
            add(self.walk(items, f"{path}.items", sub_ctx, cel=cel))
        for name, sub in _mapping(schema.get("dependencies")).items():
            if isinstance(sub, Mapping):
                add(self.walk(sub, f"{path}.dependencies[{name}]", plain, cel=False))
        found += _extension_errors(schema, path, self.options)
        found += _rule_spec_errors(schema, path)
        if not found and cel and self.cel_ok:
            cel_found += self._compile(schema, path, ctx)
        return found, cel_found

    def _standard(self, schema: Schema, path: str, ctx: _Context) -> list[FieldError]:
        """Upstream's `specStandardValidatorV3`: the OpenAPI v3 subset CRD schemas may use."""
        errors: list[FieldError] = []
        kind = schema.get("type")
        if self.options.require_valid_property_type and isinstance(kind, str) and kind and kind not in OPENAPI_TYPES:
            errors.append(not_supported(f"{path}.type", kind, OPENAPI_TYPES))
        if "default" in schema and schema["default"] is not None and ctx.defaults_forbidden is not None:
            detail = "must not be set" + (f" {ctx.defaults_forbidden}" if ctx.defaults_forbidden else "")
            errors.append(forbidden(f"{path}.default", detail))
        for key, detail in (
            ("id", "id is not supported"),
            ("additionalItems", "additionalItems is not supported"),
            ("patternProperties", "patternProperties is not supported"),
            ("definitions", "definitions is not supported"),
            ("dependencies", "dependencies is not supported"),
            ("$ref", "$ref is not supported"),
        ):
            if schema.get(key) not in (None, "", {}):
                errors.append(forbidden(f"{path}.{key}", detail))
        if kind == "null":
            errors.append(forbidden(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
        if isinstance(schema.get("items"), list):
            errors.append(forbidden(f"{path}.items", "items must be a schema object and not an array"))
        if ctx.inside_meta and schema.get("x-kubernetes-embedded-resource") is True:
            errors.append(
                forbidden(f"{path}.x-kubernetes-embedded-resource", "must not be used inside of resource meta")
            )
        return errors

    def _compile(self, schema: Schema, path: str, ctx: _Context) -> list[FieldError]:
        errors: list[FieldError] = []
        typed = {**schema, "x-kubernetes-embedded-resource": True} if ctx.root else schema
        for index, rule in enumerate(_schemas(schema.get("x-kubernetes-validations"))):
            where = f"{path}.x-kubernetes-validations[{index}]"
            text = rule.get("rule")
            if not isinstance(text, str) or not text.strip():
                continue
            optional_old_self = rule.get("optionalOldSelf") is True
            try:
                compiled = compile_rule(typed, text, optional_old_self=optional_old_self, check_cost=False)
            except CelError as err:
                errors.append(invalid(f"{where}.rule", _rule_value(rule), _compilation(str(err))))
                continue
            cost = compiled.estimated_cost * ctx.cardinality
            if not self.options.suppress_per_expression_cost and cost > STATIC_ESTIMATED_COST_LIMIT:
                detail = cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT)
                errors.append(forbidden(f"{where}.rule", detail))
            self.costs.append(_Cost(f"{where}.rule", cost))
            errors += _message_expression_errors(typed, rule, where)
            if compiled.transition:
                if ctx.uncorrelatable is not None:
                    detail = f"{_UNCORRELATABLE} {ctx.uncorrelatable}"
                    errors.append(invalid(f"{where}.rule", text, detail))
            elif "optionalOldSelf" in rule and rule["optionalOldSelf"] is not None:
                detail = "may not be set if oldSelf is not used in rule"
                errors.append(invalid(f"{where}.optionalOldSelf", rule["optionalOldSelf"], detail))
        return errors


def _forbid_old_self(ctx: _Context, path: str) -> _Context:
    return ctx if ctx.uncorrelatable is not None else replace(ctx, uncorrelatable=path)


def _cardinality(schema: Schema) -> int:
    """How many values a list's items or a map's values can be: maxItems/maxProperties, else as
    many as fit in the largest request."""
    return max_size(schema_type(schema)) if schema_type(schema) is not cel_types.DYN else 1


def _compilation(text: str) -> str:
    return f"compilation failed: {text}" if text.startswith("ERROR:") else text


def _message_expression_errors(typed: Schema, rule: Schema, where: str) -> list[FieldError]:
    expression = rule.get("messageExpression")
    if not isinstance(expression, str) or not expression.strip():
        return []
    try:
        compile_rule(typed, "true", message_expression=expression, check_cost=False)
    except CelError as err:
        text = str(err)
        if text.startswith("compilation failed: "):
            text = "messageExpression " + text
        elif text.startswith("ERROR:"):
            text = f"messageExpression compilation failed: {text}"
        return [invalid(f"{where}.messageExpression", _rule_value(rule), text)]
    return []


def _extension_errors(schema: Schema, path: str, options: SchemaOptions) -> list[FieldError]:
    """x-kubernetes-preserve-unknown-fields, map-type, list-type and list-map-keys consistency."""
    errors: list[FieldError] = []
    kind = schema.get("type") if isinstance(schema.get("type"), str) else ""
    if schema.get("x-kubernetes-preserve-unknown-fields") is False:
        errors.append(invalid(f"{path}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    map_type = schema.get("x-kubernetes-map-type")
    if map_type is not None and kind != "object":
        detail = "must be object if x-kubernetes-map-type is specified"
        errors.append(required(f"{path}.type", detail) if not kind else invalid(f"{path}.type", kind, detail))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errors.append(not_supported(f"{path}.x-kubernetes-map-type", map_type, ("atomic", "granular")))
    list_type = schema.get("x-kubernetes-list-type")
    items = schema.get("items") if isinstance(schema.get("items"), Mapping) else None
    if list_type is not None and kind != "array":
        detail = "must be array if x-kubernetes-list-type is specified"
        errors.append(required(f"{path}.type", detail) if not kind else invalid(f"{path}.type", kind, detail))
    elif options.require_atomic_set_type and list_type == "set" and items is not None:
        errors += _atomic_set_items(items, path)
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errors.append(not_supported(f"{path}.x-kubernetes-list-type", list_type, ("atomic", "set", "map")))
    keys = schema.get("x-kubernetes-list-map-keys")
    keys = keys if isinstance(keys, list) else []
    if keys:
        if list_type is None:
            errors.append(
                required(f"{path}.x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is non-empty")
            )
        elif list_type != "map":
            detail = "must be map if x-kubernetes-list-map-keys is non-empty"
            errors.append(invalid(f"{path}.x-kubernetes-list-type", list_type, detail))
    if list_type == "map":
        errors += _map_list_errors(schema, items, keys, path)
    if options.require_map_list_keys and items is not None and list_type in ("set", "map"):
        errors += _map_set_item_errors(items, keys, list_type, path)
    return errors


def _atomic_set_items(items: Schema, path: str) -> list[FieldError]:
    detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
    if items.get("type") == "array":
        nested = items.get("x-kubernetes-list-type")
        if nested is not None and nested != "atomic":
            return [invalid(f"{path}.items.x-kubernetes-list-type", nested, detail)]
    if items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
        return [invalid(f"{path}.items.x-kubernetes-map-type", items.get("x-kubernetes-list-type"), detail)]
    return []


def _map_list_errors(schema: Schema, items: Schema | None, keys: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not keys:
        errors.append(
            required(f"{path}.x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map")
        )
    if "items" not in schema:
        errors.append(required(f"{path}.items", "must have a schema if x-kubernetes-list-type is map"))
    elif items is None:
        errors.append(
            invalid(
                f"{path}.items", schema.get("items"), "must only have a single schema if x-kubernetes-list-type is map"
            )
        )
    if items is None:
        return errors
    if items.get("type") != "object":
        errors.append(
            invalid(
                f"{path}.items.type",
                items.get("type", ""),
                "must be object if parent array's x-kubernetes-list-type is map",
            )
        )
        return errors
    properties = _mapping(items.get("properties"))
    seen: set[Any] = set()
    for key in keys:
        if key in properties:
            if _mapping(properties[key]).get("type") in ("array", "object"):
                detail = "must be a scalar type if parent array's x-kubernetes-list-type is map"
                errors.append(invalid(f"{path}.items.properties[{key}].type", "object", detail))
        else:
            errors.append(
                invalid(f"{path}.x-kubernetes-list-map-keys", keys, "entries must all be names of item properties")
            )
        if key in seen:
            errors.append(invalid(f"{path}.x-kubernetes-list-map-keys", keys, "must not contain duplicate entries"))
        seen.add(key)
    return errors


def _map_set_item_errors(items: Schema, keys: list[Any], list_type: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if items.get("nullable") is True:
        errors.append(
            forbidden(f"{path}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is {list_type}")
        )
    if list_type != "map":
        return errors
    required_names = set(items.get("required") or ()) if isinstance(items.get("required"), list) else set()
    properties = _mapping(items.get("properties"))
    for key in keys:
        prop = properties.get(key)
        if not isinstance(prop, Mapping):
            continue
        where = f"{path}.items.properties[{key}]"
        if key not in required_names and prop.get("default") is None:
            detail = (
                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"
            )
            errors.append(required(f"{where}.default", detail))
        if prop.get("nullable") is True:
            errors.append(
                forbidden(
                    f"{where}.nullable", "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"
                )
            )
    return errors


def _rule_spec_errors(schema: Schema, path: str) -> list[FieldError]:
    """The static checks of each `x-kubernetes-validations` entry (before any compiling)."""
    errors: list[FieldError] = []
    for index, rule in enumerate(_schemas(schema.get("x-kubernetes-validations"))):
        where = f"{path}.x-kubernetes-validations[{index}]"
        text = rule.get("rule") if isinstance(rule.get("rule"), str) else ""
        message = rule.get("message") if isinstance(rule.get("message"), str) else ""
        expression = rule.get("messageExpression") if isinstance(rule.get("messageExpression"), str) else ""
        if not text.strip():
            errors.append(required(f"{where}.rule", "rule is not specified"))
        elif message and not message.strip():
            errors.append(invalid(f"{where}.message", message, "message must be non-empty if specified"))
        elif _NEWLINES.search(message.strip()):
            errors.append(invalid(f"{where}.message", message, "message must not contain line breaks"))
        elif _NEWLINES.search(text.strip()) and not message.strip():
            errors.append(required(f"{where}.message", "message must be specified if rule contains line breaks"))
        if expression and not expression.strip():
            errors.append(required(f"{where}.messageExpression", "messageExpression must be non-empty if specified"))
        reason = rule.get("reason")
        if reason is not None and reason not in REASONS:
            errors.append(not_supported(f"{where}.reason", reason, REASONS))
        field_path = rule.get("fieldPath") if isinstance(rule.get("fieldPath"), str) else ""
        if field_path and not field_path.strip():
            errors.append(invalid(f"{where}.fieldPath", field_path, "fieldPath must be non-empty if specified"))
        if _NEWLINES.search(field_path):
            errors.append(invalid(f"{where}.fieldPath", field_path, "fieldPath must not contain line breaks"))
        if field_path and not field_path_valid(schema, field_path):
            errors.append(invalid(f"{where}.fieldPath", field_path, "fieldPath must be a valid path"))
    return errors


def field_path_valid(schema: Schema, field_path: str, *, allow_keys: bool = True) -> bool:
    """Whether a relative JSON path (`.a.b`, `.a['b.c']`) names a declared field of `schema`."""
    return resolve_field_path(schema, field_path, allow_keys=allow_keys) is not None


def resolve_field_path(schema: Schema, field_path: str, *, allow_keys: bool = True) -> Schema | None:
    """The schema a relative JSON path points to, or None when the path is malformed or undeclared."""
    position, node = 0, schema
    while position < len(field_path):
        match = _FIELD_PATH_PART.match(field_path, position)
        if match is None or (match.group(2) is not None and not allow_keys):
            return None
        name = match.group(1) if match.group(1) is not None else match.group(2)
        properties = _mapping(node.get("properties"))
        additional = node.get("additionalProperties")
        if name in properties:
            node = _mapping(properties[name])
        elif isinstance(additional, Mapping):
            node = additional
        else:
            return None
        position = match.end()
    return node if field_path else None
