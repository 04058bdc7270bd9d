"""The structural schema rules of a CRD version's schema, as upstream's `ValidateStructural`.

Every specified node has a type unless int-or-string or preserve-unknown; arrays have items;
`allOf`/`anyOf`/`oneOf`/`not` hold value validations only (the int-or-string `anyOf` excepted), and
only on fields also declared outside them (completeness); metadata is restricted to name and
generateName at the root; no additionalProperties at the root or on embedded resources. Upstream
sorts these errors by their text, and so does `validate_structural`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from svc.machinery.cel.re2 import RegexError, compile_re2
from svc.machinery.field_errors import FieldError, forbidden, invalid, required

Schema = Mapping[str, Any]


def mapping_of(value: Any) -> Mapping[str, Any]:
    """An object member of a schema, or {} when absent or of another JSON type."""
    return value if isinstance(value, Mapping) else {}


def schemas_of(value: Any) -> list[Mapping[str, Any]]:
    """A list-of-schemas member (allOf, anyOf, oneOf), without entries of another JSON type."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


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
    for name, sub in mapping_of(schema.get("properties")).items():
        errors += _tree_completeness(mapping_of(sub), f"{path}.properties[{name}]")
    return errors


def _invariants(schema: Schema, level: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = schema.get("type") if isinstance(schema.get("type"), str) else ""
    items = schema.get("items")
    if kind == "array" and not isinstance(items, Mapping):
        errors.append(required(f"{path}.items", "must be specified"))
    if isinstance(items, Mapping):
        errors += _invariants(items, _ITEM, f"{path}.items")
    properties = mapping_of(schema.get("properties"))
    for name, sub in properties.items():
        errors += _invariants(mapping_of(sub), _FIELD, f"{path}.properties[{name}]")
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
            found = mapping_of(properties[name]).get("type", "")
            if found != wanted:
                errors.append(invalid(f"{path}.properties[{name}].type", found, f"must be {wanted}"))
    if root and "metadata" in properties and not _only_names(mapping_of(properties["metadata"])):
        detail = "must not specify anything other than name and generateName, but metadata is implicitly specified"
        errors.append(forbidden(f"{path}.properties[metadata]", detail))
    return errors


def _only_names(metadata: Schema) -> bool:
    """Whether a root metadata schema restricts at most name and generateName (and sets no default)."""
    ignored = {"type", "default", "properties"}
    if any(key not in ignored for key in metadata):
        return False
    properties = mapping_of(metadata.get("properties"))
    return set(properties) <= {"name", "generateName"}


def _int_or_string_any_of(schema: Schema) -> bool:
    return schema.get("anyOf") == _INT_OR_STRING_ANY_OF


def _int_or_string_all_of(schema: Schema) -> bool:
    all_of = schemas_of(schema.get("allOf"))
    return bool(all_of) and all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF


def _value_validation(
    schema: Schema, level: str, path: str, *, skip_any_of: bool, skip_first_all_of: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    if not skip_any_of:
        for index, sub in enumerate(schemas_of(schema.get("anyOf"))):
            errors += _nested(sub, level, f"{path}.anyOf[{index}]")
    for index, sub in enumerate(schemas_of(schema.get("allOf"))):
        skip = skip_first_all_of and index == 0
        errors += _nested(sub, level, f"{path}.allOf[{index}]", skip_any_of=skip)
    for index, sub in enumerate(schemas_of(schema.get("oneOf"))):
        errors += _nested(sub, level, f"{path}.oneOf[{index}]")
    if isinstance(schema.get("not"), Mapping):
        errors += _nested(schema["not"], level, f"{path}.not")
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            compile_re2(pattern)
        except RegexError as err:
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
    properties = mapping_of(schema.get("properties"))
    for name, sub in properties.items():
        errors += _nested(mapping_of(sub), _FIELD, f"{path}.properties[{name}]")
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
        junctors += [(sub, f"{v_path}.{key}[{i}]") for i, sub in enumerate(schemas_of(value_schema.get(key)))]
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
    declared = mapping_of(structural_schema.get("properties"))
    for name, sub in mapping_of(nested.get("properties")).items():
        here, there = f"{s_path}.properties[{name}]", f"{v_path}.properties[{name}]"
        if name not in declared:
            errors.append(required(here, f"because it is defined in {there}"))
        else:
            errors += _nested_completeness(mapping_of(sub), mapping_of(declared[name]), here, there)
    return errors
