"""List and map types of a CRD schema node, as upstream's CRD validation checks them.

`x-kubernetes-list-type` (atomic, set, map) needs an array, set items must be atomic, map lists need
object items whose `x-kubernetes-list-map-keys` are scalar properties that are required or
defaulted and not nullable; `x-kubernetes-map-type` (atomic, granular) needs an object;
`x-kubernetes-preserve-unknown-fields` may only be true.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from svc.api.validation.crd_structural import mapping_of
from svc.machinery.field_errors import FieldError, forbidden, invalid, not_supported, required

Schema = Mapping[str, Any]


def list_and_map_type_errors(
    schema: Schema, path: str, *, require_atomic_set_type: bool, require_map_list_keys: bool
) -> list[FieldError]:
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
    elif require_atomic_set_type and list_type == "set" and items is not None:
        errors += _atomic_set_items(items, path)
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errors.append(not_supported(f"{path}.x-kubernetes-list-type", list_type, ("atomic", "set", "map")))
    keys = schema.get("x-kubernetes-list-map-keys")
    keys = [key for key in keys if isinstance(key, str)] if isinstance(keys, list) else []
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
    if require_map_list_keys and items is not None and list_type in ("set", "map"):
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
    properties = mapping_of(items.get("properties"))
    seen: set[Any] = set()
    for key in keys:
        if key in properties:
            if mapping_of(properties[key]).get("type") in ("array", "object"):
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
    names = items.get("required")
    required_names = {name for name in names if isinstance(name, str)} if isinstance(names, list) else set()
    properties = mapping_of(items.get("properties"))
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
