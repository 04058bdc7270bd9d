"""Validation of a CRD version's `openAPIV3Schema`, as upstream's apiextensions validation does it.

Three passes, in upstream's order and with its texts and paths (`properties[spec].type`):

1. the structural schema rules (`crd_structural`);
2. when the schema is structural, its defaults (`crd_defaults`);
3. the OpenAPI subset CRDs allow (no `$ref`, `id`, `patternProperties`, ...), list and map types
   (`crd_list_types`), `x-kubernetes-validations` (static checks, then compiled against the node's
   type with their estimated cost, multiplied by how often the rule can run, under upstream's
   per-rule and whole-schema limits) — here.

Schemas arrive as JSON; a member of the wrong JSON type is read as absent (strict decoding upstream
refuses such bodies before validation).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from svc.api.validation.crd_defaults import META_FIELDS, validate_defaults
from svc.api.validation.crd_list_types import list_and_map_type_errors
from svc.api.validation.crd_structural import mapping_of, schemas_of, validate_structural
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
        properties = mapping_of(schema.get("properties"))
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
            if (ctx.root or embedded) and name in META_FIELDS:
                sub_ctx = replace(sub_ctx, inside_meta=True)
                if ctx.root:
                    sub_ctx = replace(sub_ctx, defaults_forbidden=f"in top-level {name}")
            add(self.walk(mapping_of(sub), f"{path}.properties[{name}]", sub_ctx, cel=cel))
        plain = replace(ctx, root=False)
        if isinstance(schema.get("not"), Mapping):
            add(self.walk(schema["not"], f"{path}.not", plain, cel=False))
        for key in ("allOf", "oneOf", "anyOf"):
            for index, sub in enumerate(schemas_of(schema.get(key))):
                add(self.walk(sub, f"{path}.{key}[{index}]", plain, cel=False))
        for name, sub in mapping_of(schema.get("definitions")).items():
            add(self.walk(mapping_of(sub), f"{path}.definitions[{name}]", plain, cel=False))
        items = schema.get("items")
        if isinstance(items, Mapping):
            sub_ctx = replace(ctx, root=False, cardinality=ctx.cardinality * _cardinality(schema))
            if schema.get("x-kubernetes-list-type") != "map":
                sub_ctx = _forbid_old_self(sub_ctx, path)
            add(self.walk(items, f"{path}.items", sub_ctx, cel=cel))
        for name, sub in mapping_of(schema.get("dependencies")).items():
            if isinstance(sub, Mapping):
                add(self.walk(sub, f"{path}.dependencies[{name}]", plain, cel=False))
        found += list_and_map_type_errors(
            schema,
            path,
            require_atomic_set_type=self.options.require_atomic_set_type,
            require_map_list_keys=self.options.require_map_list_keys,
        )
        found += _rule_spec_errors(schema, path)
        if not found and cel and self.cel_ok:
            cel_found += self._compile(schema, path, ctx)
        return found, cel_found

    def _standard(self, schema: Schema, path: str, ctx: _Context) -> list[FieldError]:
        """Upstream's `specStandardValidatorV3`: the OpenAPI v3 subset CRD schemas may use."""
        errors: list[FieldError] = keyword_type_errors(schema, path)
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
        for index, rule in enumerate(schemas_of(schema.get("x-kubernetes-validations"))):
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
            errors += self._message_expression(typed, rule, where)
            if compiled.transition:
                if ctx.uncorrelatable is not None:
                    detail = f"{_UNCORRELATABLE} {ctx.uncorrelatable}"
                    errors.append(invalid(f"{where}.rule", text, detail))
            elif "optionalOldSelf" in rule and rule["optionalOldSelf"] is not None:
                detail = "may not be set if oldSelf is not used in rule"
                errors.append(invalid(f"{where}.optionalOldSelf", rule["optionalOldSelf"], detail))
        return errors

    def _message_expression(self, typed: Schema, rule: Schema, where: str) -> list[FieldError]:
        """A messageExpression compiles to a string within the static cost limit (upstream does not
        scale its cost by cardinality: it runs only when its rule fails)."""
        expression = rule.get("messageExpression")
        if not isinstance(expression, str) or not expression.strip():
            return []
        try:
            compiled = compile_rule(typed, "true", message_expression=expression, check_cost=False)
        except CelError as err:
            text = str(err)
            if text.startswith("compilation failed: "):
                text = "messageExpression " + text
            elif text.startswith("ERROR:"):
                text = f"messageExpression compilation failed: {text}"
            return [invalid(f"{where}.messageExpression", _rule_value(rule), text)]
        self.costs.append(_Cost(f"{where}.messageExpression", compiled.message_cost))
        if not self.options.suppress_per_expression_cost and compiled.message_cost > STATIC_ESTIMATED_COST_LIMIT:
            detail = cost_error_message(
                "estimated messageExpression cost", compiled.message_cost, STATIC_ESTIMATED_COST_LIMIT
            )
            return [forbidden(f"{where}.messageExpression", detail)]
        return []


_KEYWORD_TYPES: Final[dict[str, tuple[tuple[type, ...], str]]] = {
    **dict.fromkeys(("type", "format", "description", "title", "pattern"), ((str,), "string")),
    **dict.fromkeys(("x-kubernetes-list-type", "x-kubernetes-map-type"), ((str,), "string")),
    **dict.fromkeys(("maximum", "minimum", "multipleOf"), ((int, float), "number")),
    **dict.fromkeys(
        ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"), ((int,), "integer")
    ),
    **dict.fromkeys(("exclusiveMaximum", "exclusiveMinimum", "nullable", "uniqueItems"), ((bool,), "boolean")),
    **dict.fromkeys(
        ("x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"),
        ((bool,), "boolean"),
    ),
    **dict.fromkeys(("properties", "not"), ((dict,), "object")),
    **dict.fromkeys(("enum", "allOf", "anyOf", "oneOf", "x-kubernetes-validations"), ((list,), "array")),
    "items": ((dict, list), "object"),
    "additionalProperties": ((dict, bool), "object or boolean"),
    "required": ((list,), "array of strings"),
    "x-kubernetes-list-map-keys": ((list,), "array of strings"),
}


def keyword_type_errors(schema: Schema, path: str) -> list[FieldError]:
    """Keywords of the wrong JSON type, which upstream's strict decoding of JSONSchemaProps refuses;
    everything else here reads them as absent, so they are reported once, here."""
    errors: list[FieldError] = []
    for key, value in schema.items():
        expected = _KEYWORD_TYPES.get(key)
        if expected is None or value is None:
            continue
        accepted, name = expected
        wrong = type(value) not in accepted
        if not wrong and type(value) is list and name == "array of strings":
            wrong = not all(isinstance(item, str) for item in value)
        if wrong:
            errors.append(invalid(f"{path}.{key}", value, f"must be of type {name}"))
    return errors


def _forbid_old_self(ctx: _Context, path: str) -> _Context:
    return ctx if ctx.uncorrelatable is not None else replace(ctx, uncorrelatable=path)


def _cardinality(schema: Schema) -> int:
    """How many values a list's items or a map's values can be: maxItems/maxProperties, else as
    many as fit in the largest request."""
    return max_size(schema_type(schema)) if schema_type(schema) is not cel_types.DYN else 1


def _compilation(text: str) -> str:
    return f"compilation failed: {text}" if text.startswith("ERROR:") else text


def _rule_spec_errors(schema: Schema, path: str) -> list[FieldError]:
    """The static checks of each `x-kubernetes-validations` entry (before any compiling)."""
    errors: list[FieldError] = []
    for index, rule in enumerate(schemas_of(schema.get("x-kubernetes-validations"))):
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
        properties = mapping_of(node.get("properties"))
        additional = node.get("additionalProperties")
        if name in properties:
            node = mapping_of(properties[name])
        elif isinstance(additional, Mapping):
            node = additional
        else:
            return None
        position = match.end()
    return node if field_path else None
