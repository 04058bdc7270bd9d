"""OpenAPI value validation of a custom resource against its CRD schema, as upstream reports it.

Upstream runs kube-openapi's schema validator and turns each result into a field error: Required for
a missing required property, NotSupported for an enum miss, TooLong/TooMany for maxLength, maxItems
and maxProperties, TypeInvalid for a type or format miss, and Invalid carrying the validator's own
sentence (`spec.replicas in body should be less than or equal to 5`) for everything else; errors of
`anyOf`/`oneOf`/`not` are composite: no field (`<nil>`), the quoted path in the text. On top come the checks the
structural schema adds: `x-kubernetes-list-type` set and map uniqueness and the apiVersion/kind/metadata
of embedded resources.

A schema is compiled once into a tree of `Node`s, then `Node.validate(value, path, old)` walks a value.
Ratcheting (upstream's CRDValidationRatcheting, on by default) is the `old` argument: a value equal to
the value at the same place in the old object is not validated again, so objects stored before a
schema got stricter can still be updated. Map-type lists correlate old items by key, sets by value;
other lists only as a whole.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from svc.api.crd.formats import format_check
from svc.machinery.cel.re2 import RegexError, compile_re2
from svc.machinery.field_errors import (
    FieldError,
    duplicate,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    type_invalid,
)
from svc.machinery.gotext import format_float, json_marshal, quote
from svc.machinery.validation import is_dns1035_label, name_is_path_segment, validate_object_meta

MISSING: Final[Any] = object()
"""The old value at a place the old object does not have (or when there is no old object)."""

COMPOSITE_FIELD: Final = "<nil>"
"""The field upstream's composite (anyOf/oneOf/not) errors carry: a nil field path, printed by Go."""

_ANY_OF: Final = "must validate at least one schema (anyOf)"
_ONE_OF: Final = "must validate one and only one schema (oneOf)."
_NOT: Final = "must not validate the schema (not)"


_JSON_TYPES: Final[dict[type, str]] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
_ACCEPTED: Final[dict[str, tuple[type, ...]]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "array": (list,),
    "object": (dict,),
}


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value, as the validator names it in messages."""
    return _JSON_TYPES.get(type(value), "object")


def scalar_key(value: Any) -> Any:
    """A hashable identity of a JSON value that tells `1`, `1.0`-as-number and `true` apart."""
    if type(value) in (dict, list):
        return json_marshal(value)
    return (type(value), value)


def _number(value: float) -> str:
    """A limit as Go's %v prints the float64 the schema holds."""
    return format_float(float(value))


def _subject(path: str) -> str:
    """The validator's `<name> in body`; for the value's root the name is empty, as upstream prints it."""
    return f"{path} in body"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _integral(value: Any) -> bool:
    return type(value) is float and math.isfinite(value) and value == int(value)


def _enum_text(value: Any) -> str:
    return value if type(value) is str else json_marshal(value)


Check = Callable[[Any, str], list[FieldError]]


class _Found:
    """Errors of one walk, kept apart by pass so that they come out in upstream's order."""

    __slots__ = ("embedded", "lists", "schema")

    def __init__(self) -> None:
        self.schema: list[FieldError] = []
        self.lists: list[FieldError] = []
        self.embedded: list[FieldError] = []


class Node:
    """A compiled schema node; compiling once keeps per-object validation to plain dict walks."""

    __slots__ = (
        "accepted",
        "additional",
        "checks",
        "embedded",
        "int_or_string",
        "items",
        "leaf",
        "list_type",
        "map_keys",
        "nullable",
        "properties",
        "type",
    )

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.type: str = schema.get("type") if isinstance(schema.get("type"), str) else ""
        self.accepted: tuple[type, ...] = _ACCEPTED.get(self.type, ())
        self.nullable = schema.get("nullable") is True
        self.int_or_string = schema.get("x-kubernetes-int-or-string") is True
        self.embedded = schema.get("x-kubernetes-embedded-resource") is True
        props = schema.get("properties")
        self.properties: dict[str, Node] = (
            {name: Node(sub) for name, sub in props.items() if isinstance(sub, Mapping)}
            if isinstance(props, Mapping)
            else {}
        )
        additional = schema.get("additionalProperties")
        self.additional = Node(additional) if isinstance(additional, Mapping) else None
        items = schema.get("items")
        self.items = Node(items) if isinstance(items, Mapping) else None
        list_type = schema.get("x-kubernetes-list-type")
        self.list_type = list_type if isinstance(list_type, str) else ""
        keys = schema.get("x-kubernetes-list-map-keys")
        self.map_keys = tuple(k for k in keys if isinstance(k, str)) if isinstance(keys, list) else ()
        self.checks: tuple[Check, ...] = tuple(_checks(schema))
        # A typed leaf without checks: a value of its type needs no call at all (the common case).
        self.leaf = not (
            self.checks or self.properties or self.additional or self.items or self.embedded or self.int_or_string
        )

    def validate(self, value: Any, path: str = "", old: Any = MISSING) -> list[FieldError]:
        """The errors of `value` at `path`, in upstream's passes: schema, list types, embedded
        resources. Nothing is reported below a value equal to its correlated `old` value."""
        found = _Found()
        self._walk(value, path, old, found)
        return found.schema + found.lists + found.embedded

    def _walk(self, value: Any, path: str, old: Any, found: _Found) -> None:
        if old is not MISSING and value == old:
            return
        if value is None:
            if not (self.nullable or not self.type or self.int_or_string):
                message = f"{_subject(path)} must be of type {self.type}: " + '"null"'
                found.schema.append(type_invalid(path, "null", message))
            return
        if self.int_or_string:
            if json_type(value) not in ("integer", "string"):
                message = f'{_subject(path)} must be of type integer,string: "{json_type(value)}"'
                found.schema.append(type_invalid(path, json_type(value), message))
                return
        elif self.accepted and type(value) not in self.accepted and not (self.type == "integer" and _integral(value)):
            message = f'{_subject(path)} must be of type {self.type}: "{json_type(value)}"'
            found.schema.append(type_invalid(path, json_type(value), message))
            return
        for check in self.checks:
            found.schema += check(value, path)
        if type(value) is dict:
            self._members(value, path, old if type(old) is dict else MISSING, found)
            if self.embedded:
                found.embedded += embedded_resource_errors(value, path)
        elif type(value) is list:
            self._items(value, path, old if type(old) is list else MISSING, found)

    def _members(self, value: dict[str, Any], path: str, old: Any, found: _Found) -> None:
        for key, item in value.items():
            node = self.properties.get(key) or self.additional
            if node is not None and not (node.leaf and type(item) in node.accepted):
                before = old.get(key, MISSING) if old is not MISSING else MISSING
                node._walk(item, _join(path, key), before, found)

    def _items(self, value: list[Any], path: str, old: Any, found: _Found) -> None:
        by_key = self._old_items_by_key(old)
        items = self.items
        if items is not None and not (items.leaf and all(type(item) in items.accepted for item in value)):
            for index, item in enumerate(value):
                before = by_key.get(self._key(item), MISSING) if by_key else MISSING
                items._walk(item, f"{path}[{index}]", before, found)
        if self.list_type == "set":
            found.lists += _set_duplicates(value, path)
        elif self.list_type == "map" and self.map_keys:
            found.lists += self._map_duplicates(value, path)

    def _key(self, item: Any) -> Any:
        """The identity old and new items correlate by: the map keys, or a set item's value."""
        if self.list_type == "set":
            return scalar_key(item)
        if type(item) is not dict:
            return None
        return tuple(scalar_key(item.get(key)) for key in self.map_keys)

    def _old_items_by_key(self, old: Any) -> dict[Any, Any]:
        if old is MISSING or not (self.list_type == "set" or (self.list_type == "map" and self.map_keys)):
            return {}
        return {self._key(item): item for item in old if self.list_type == "set" or type(item) is dict}

    def _map_duplicates(self, value: list[Any], path: str) -> list[FieldError]:
        errors: list[FieldError] = []
        seen: set[Any] = set()
        for index, item in enumerate(value):
            if type(item) is not dict:
                continue
            key = self._key(item)
            if key in seen:
                errors.append(duplicate(f"{path}[{index}]", {k: item[k] for k in self.map_keys if k in item}))
            seen.add(key)
        return errors


def _set_duplicates(value: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[Any] = set()
    for index, item in enumerate(value):
        key = scalar_key(item)
        if key in seen:
            errors.append(duplicate(f"{path}[{index}]", item))
        seen.add(key)
    return errors


def compile_schema(schema: Mapping[str, Any]) -> Node:
    return Node(schema)


def embedded_resource_errors(value: dict[str, Any], path: str) -> list[FieldError]:
    """What upstream demands of an `x-kubernetes-embedded-resource` object: apiVersion and kind set
    and well formed, and metadata valid as ObjectMeta (any name that is a path segment)."""
    errors: list[FieldError] = []
    for key in ("apiVersion", "kind"):
        if key not in value:
            errors.append(required(_join(path, key)))
    for key, item in value.items():
        where = _join(path, key)
        if key == "apiVersion":
            errors += _type_meta(item, where, _group_version_errors)
        elif key == "kind":
            errors += _type_meta(item, where, _kind_errors)
        elif key == "metadata" and type(item) is dict:
            meta = item if item.get("name") else {**item, "name": "fakename"}
            namespaced = bool(meta.get("namespace"))
            errors += validate_object_meta(
                meta, namespaced=namespaced, name_validator=name_is_path_segment, path=where, standard_finalizers=None
            )
    return errors


def _type_meta(value: Any, where: str, check: Callable[[str], list[str]]) -> list[FieldError]:
    if type(value) is not str:
        return [invalid(where, value, "must be a string")]
    if not value:
        return [invalid(where, value, "must not be empty")]
    return [invalid(where, value, message) for message in check(value)]


def _group_version_errors(api_version: str) -> list[str]:
    return [f"unexpected GroupVersion string: {api_version}"] if api_version.count("/") > 1 else []


def _kind_errors(kind: str) -> list[str]:
    messages = is_dns1035_label(kind.lower())
    return ["may have mixed case, but should otherwise match: " + ",".join(messages)] if messages else []


def _checks(schema: Mapping[str, Any]) -> list[Check]:
    """The value checks of one node, in the order kube-openapi's validators run."""
    checks: list[Check] = []
    checks += _composition(schema)
    checks += _string_checks(schema)
    checks += _number_checks(schema)
    checks += _array_checks(schema)
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        allowed = [_enum_text(item) for item in enum]
        checks.append(lambda v, p: [] if v in enum else [not_supported(p, v, allowed)])
    checks += _object_checks(schema)
    return checks


def _nodes(value: Any) -> list[Node]:
    """The compiled schemas of an allOf/anyOf/oneOf list (entries of another JSON type skipped)."""
    return [Node(sub) for sub in value if isinstance(sub, Mapping)] if isinstance(value, list) else []


def _composition(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    all_of = _nodes(schema.get("allOf"))
    if all_of:
        checks.append(lambda v, p: [e for node in all_of for e in node.validate(v, p)])
    any_of = _nodes(schema.get("anyOf"))
    if any_of:

        def check_any_of(value: Any, path: str) -> list[FieldError]:
            results = [node.validate(value, path) for node in any_of]
            if any(not errors for errors in results):
                return []
            return [invalid(COMPOSITE_FIELD, "", f"{quote(path)} {_ANY_OF}"), *results[0]]

        checks.append(check_any_of)
    one_of = _nodes(schema.get("oneOf"))
    if one_of:

        def check_one_of(value: Any, path: str) -> list[FieldError]:
            results = [node.validate(value, path) for node in one_of]
            passing = sum(1 for errors in results if not errors)
            if passing == 1:
                return []
            found = "Found none valid" if passing == 0 else f"Found {passing} valid alternatives"
            errors = [invalid(COMPOSITE_FIELD, "", f"{quote(path)} {_ONE_OF} {found}")]
            return errors + (results[0] if passing == 0 else [])

        checks.append(check_one_of)
    not_schema = schema.get("not")
    if isinstance(not_schema, Mapping):
        negated = Node(not_schema)
        checks.append(
            lambda v, p: [] if negated.validate(v, p) else [invalid(COMPOSITE_FIELD, "", f"{quote(p)} {_NOT}")]
        )
    return checks


def _string_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    max_length = schema.get("maxLength")
    if type(max_length) is int:
        checks.append(lambda v, p: [too_long(p, max_length)] if type(v) is str and len(v) > max_length else [])
    min_length = schema.get("minLength")
    if type(min_length) is int:
        message = f"should be at least {min_length} chars long"
        checks.append(
            lambda v, p: [invalid(p, v, f"{_subject(p)} {message}")] if type(v) is str and len(v) < min_length else []
        )
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            compiled = compile_re2(pattern)
        except RegexError:
            compiled = None
        if compiled is not None:
            checks.append(
                lambda v, p: (
                    [invalid(p, v, f"{_subject(p)} should match '{pattern}'")]
                    if type(v) is str and not compiled.matches(v)
                    else []
                )
            )
    fmt = schema.get("format")
    found = format_check(fmt) if isinstance(fmt, str) else None
    if found is not None:
        checks.append(
            lambda v, p: (
                [type_invalid(p, v, f'{_subject(p)} must be of type {fmt}: "{v}"')]
                if type(v) is str and not found(v)
                else []
            )
        )
    return checks


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _number_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    multiple = schema.get("multipleOf")
    if _is_number(multiple) and multiple > 0:
        text = f"should be a multiple of {_number(multiple)}"
        checks.append(
            lambda v, p: (
                [invalid(p, v, f"{_subject(p)} {text}")]
                if _is_number(v) and not float(v / multiple).is_integer()
                else []
            )
        )
    for key, exclusive_key, strict, loose in (
        ("maximum", "exclusiveMaximum", "less than", "less than or equal to"),
        ("minimum", "exclusiveMinimum", "greater than", "greater than or equal to"),
    ):
        limit = schema.get(key)
        if _is_number(limit):
            exclusive = schema.get(exclusive_key) is True
            words = strict if exclusive else loose
            checks.append(_bound(limit, above=key == "maximum", exclusive=exclusive, words=words))
    return checks


def _bound(limit: float, *, above: bool, exclusive: bool, words: str) -> Check:
    """A maximum (`above`) or minimum check, exclusive or not."""
    text = f"should be {words} {_number(limit)}"

    def check(value: Any, path: str) -> list[FieldError]:
        if not _is_number(value):
            return []
        if above:
            bad = value >= limit if exclusive else value > limit
        else:
            bad = value <= limit if exclusive else value < limit
        return [invalid(path, value, f"{_subject(path)} {text}")] if bad else []

    return check


def _array_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    min_items = schema.get("minItems")
    if type(min_items) is int:
        text = f"should have at least {min_items} items"
        checks.append(
            lambda v, p: [invalid(p, len(v), f"{_subject(p)} {text}")] if type(v) is list and len(v) < min_items else []
        )
    max_items = schema.get("maxItems")
    if type(max_items) is int:
        checks.append(lambda v, p: [too_many(p, len(v), max_items)] if type(v) is list and len(v) > max_items else [])
    if schema.get("uniqueItems") is True:
        checks.append(
            lambda v, p: (
                [invalid(p, v, f"{_subject(p)} shouldn't contain duplicates")]
                if type(v) is list and _set_duplicates(v, p)
                else []
            )
        )
    return checks


def _object_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    max_props = schema.get("maxProperties")
    if type(max_props) is int:
        checks.append(lambda v, p: [too_many(p, len(v), max_props)] if type(v) is dict and len(v) > max_props else [])
    min_props = schema.get("minProperties")
    if type(min_props) is int:
        text = f"should have at least {min_props} properties"
        checks.append(
            lambda v, p: [invalid(p, len(v), f"{_subject(p)} {text}")] if type(v) is dict and len(v) < min_props else []
        )
    names = schema.get("required")
    if isinstance(names, list) and names:
        wanted = [name for name in names if isinstance(name, str)]
        checks.append(lambda v, p: [required(_join(p, n)) for n in wanted if n not in v] if type(v) is dict else [])
    return checks
