"""Syntax rules for names, labels, annotations and finalizers, and the metadata checks built on them.

Every message is upstream's text, regular expression included, because clients and users match on it.
Two families of length messages exist upstream and both are kept: the name checks say "characters", the
label key and value checks say "bytes". Lengths are counted in UTF-8 bytes, as Go's `len` does.

Metadata is validated as a plain dict; a member of the wrong JSON type is reported as a type error
instead of raising, since the dict may come straight from a client.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, Final

from svc.machinery.field_errors import (
    FieldError,
    Rendered,
    forbidden,
    invalid,
    required,
    too_long,
    type_invalid,
)
from svc.machinery.gotext import json_marshal, json_string, quote

NameValidator = Callable[[str, bool], list[str]]

_DNS1123_LABEL: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN: Final = _DNS1123_LABEL + r"(\." + _DNS1123_LABEL + ")*"
_DNS1123_LABEL_UNDERSCORE: Final = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_UNDERSCORE: Final = _DNS1123_LABEL_UNDERSCORE + r"(\." + _DNS1123_LABEL_UNDERSCORE + ")*"
_DNS1035_LABEL: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_NAME: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE: Final = "(" + _LABEL_KEY_NAME + ")?"

_DNS1123_LABEL_RE: Final = re.compile(_DNS1123_LABEL)
_DNS1123_SUBDOMAIN_RE: Final = re.compile(_DNS1123_SUBDOMAIN)
_DNS1123_SUBDOMAIN_UNDERSCORE_RE: Final = re.compile(_DNS1123_SUBDOMAIN_UNDERSCORE)
_DNS1035_LABEL_RE: Final = re.compile(_DNS1035_LABEL)
_LABEL_KEY_NAME_RE: Final = re.compile(_LABEL_KEY_NAME)
_LABEL_VALUE_RE: Final = re.compile(_LABEL_VALUE)

_DNS1123_LABEL_MSG: Final = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_UNDERSCORE_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG: Final = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_LABEL_KEY_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

_CONFIG_KEY: Final = "[-._a-zA-Z0-9]+"
_CONFIG_KEY_RE: Final = re.compile(_CONFIG_KEY)
_CONFIG_KEY_MSG: Final = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"

_LABEL_MAX: Final = 63
_DNS_LABEL_MAX: Final = 63
_DNS_SUBDOMAIN_MAX: Final = 253
TOTAL_ANNOTATION_SIZE_LIMIT: Final = 256 * 1024
_FIELD_MANAGER_MAX: Final = 128
_SUBRESOURCE_MAX: Final = 256

FINALIZER_ORPHAN: Final = "orphan"
FINALIZER_FOREGROUND: Final = "foregroundDeletion"
GENERIC_FINALIZERS: Final = frozenset({FINALIZER_ORPHAN, FINALIZER_FOREGROUND})
"""Finalizer names that need no domain on every profile; callers add their profile's namespace finalizer."""


def _size(value: str) -> int:
    """The UTF-8 length Go's len() sees; ASCII (nearly every name) needs no encoding."""
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


def regex_error(message: str, pattern: str, *examples: str) -> str:
    """Upstream's wording for a failed pattern (note the doubled space between examples)."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def _max_len(limit: int, unit: str) -> str:
    return f"must be no more than {limit} {unit}"


def _subdomain_errors(value: str, unit: str) -> list[str]:
    errors = [_max_len(_DNS_SUBDOMAIN_MAX, unit)] if _size(value) > _DNS_SUBDOMAIN_MAX else []
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN, "example.com"))
    return errors


def is_dns1123_subdomain(value: str) -> list[str]:
    return _subdomain_errors(value, "characters")


def is_dns1123_subdomain_with_underscore(value: str) -> list[str]:
    """Upstream's `IsDNS1123SubdomainWithUnderscore` (DNS search domains such as `_srv.example.com`)."""
    errors = [_max_len(_DNS_SUBDOMAIN_MAX, "characters")] if _size(value) > _DNS_SUBDOMAIN_MAX else []
    if not _DNS1123_SUBDOMAIN_UNDERSCORE_RE.fullmatch(value):
        errors.append(regex_error(_DNS1123_SUBDOMAIN_UNDERSCORE_MSG, _DNS1123_SUBDOMAIN_UNDERSCORE, "example.com"))
    return errors


def is_dns1123_label(value: str) -> list[str]:
    errors = [_max_len(_DNS_LABEL_MAX, "characters")] if _size(value) > _DNS_LABEL_MAX else []
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL, "my-name", "123-abc"))
    return errors


def is_dns1035_label(value: str) -> list[str]:
    errors = [_max_len(_DNS_LABEL_MAX, "characters")] if _size(value) > _DNS_LABEL_MAX else []
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errors.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL, "my-name", "abc-123"))
    return errors


def is_qualified_name(value: str) -> list[str]:
    """A label key: an optional DNS subdomain prefix and '/', then a name of at most 63 bytes."""
    if value in _VALID_KEYS:
        return []
    errors = _qualified_name_errors(value)
    if not errors:
        if len(_VALID_KEYS) >= _VALID_LABELS_LIMIT:
            _VALID_KEYS.clear()
        _VALID_KEYS.add(value)
    return errors


# Qualified names (label, annotation, selector and toleration keys) found valid before: a pod names the
# same few keys write after write, in several places each.
_VALID_KEYS: set[str] = set()


def _qualified_name_errors(value: str) -> list[str]:
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) > 2:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_NAME, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += ["prefix part " + message for message in _subdomain_errors(prefix, "bytes")]
    if not name:
        errors.append("name part must be non-empty")
    elif _size(name) > _LABEL_MAX:
        errors.append("name part " + _max_len(_LABEL_MAX, "bytes"))
    if not _LABEL_KEY_NAME_RE.fullmatch(name):
        errors.append("name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_NAME, "MyName", "my.name", "123-abc"))
    return errors


def is_config_map_key(key: str) -> list[str]:
    """Upstream's `IsConfigMapKey`: a file name a volume can project."""
    errors = ["must be no more than 253 characters"] if len(key.encode()) > 253 else []
    if not _CONFIG_KEY_RE.fullmatch(key):
        errors.append(regex_error(_CONFIG_KEY_MSG, _CONFIG_KEY, "key.name", "KEY_NAME", "key-name"))
    if key == ".":
        errors.append("must not be '.'")
    elif key == "..":
        errors.append("must not be '..'")
    elif key.startswith(".."):
        errors.append("must not start with '..'")
    return errors


def is_valid_label_value(value: str) -> list[str]:
    errors = [_max_len(_LABEL_MAX, "bytes")] if _size(value) > _LABEL_MAX else []
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE, "MyValue", "my_value", "12345"))
    return errors


def _path_segment_prefix(value: str) -> list[str]:
    return [f"may not contain '{bad}'" for bad in ("/", "%") if bad in value]


def is_valid_path_segment_name(value: str) -> list[str]:
    """Whether the name can stand alone as one URL path segment (empty and long names pass)."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return _path_segment_prefix(value)


def _mask_trailing_dash(name: str) -> str:
    # Upstream drops the last two bytes and appends 'a' (not just the dash); kept for identical results.
    raw = name.encode("utf-8", "surrogatepass")
    if len(raw) > 1 and raw.endswith(b"-"):
        return (raw[:-2] + b"a").decode("utf-8", "surrogateescape")
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


def name_is_path_segment(name: str, prefix: bool) -> list[str]:
    return _path_segment_prefix(name) if prefix else is_valid_path_segment_name(name)


def validate_label_name(key: str, path: str) -> list[FieldError]:
    return [invalid(path, key, message) for message in is_qualified_name(key)]


def validate_labels(labels: Mapping[str, str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for key, value in sorted(labels.items()):
        pair = (key, value) if type(key) is str and type(value) is str else None
        if pair in _VALID_LABELS:
            continue
        found = validate_label_name(key, path)
        found += [invalid(path, value, message) for message in is_valid_label_value(value)]
        if found:
            errors += found
        elif pair is not None:
            _remember_valid_label(pair)
    return errors


# Label pairs found valid before: the same few labels come back on write after write, and a valid
# pair has no message whatever its path, so its checks need not run again.
_VALID_LABELS: set[tuple[str, str]] = set()
_VALID_LABELS_LIMIT: Final = 4096


def _remember_valid_label(pair: tuple[str, str]) -> None:
    if len(_VALID_LABELS) >= _VALID_LABELS_LIMIT:
        _VALID_LABELS.clear()
    _VALID_LABELS.add(pair)


def validate_annotations(annotations: Mapping[str, str], path: str) -> list[FieldError]:
    """Keys are qualified names compared case-insensitively; keys and values together fit in 256 KiB."""
    errors: list[FieldError] = []
    for key in sorted(annotations):
        errors += [invalid(path, key, message) for message in is_qualified_name(key.lower())]
    if sum(_size(key) + _size(value) for key, value in annotations.items()) > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errors


def validate_field_manager(manager: str, path: str) -> list[FieldError]:
    errors = [too_long(path, _FIELD_MANAGER_MAX)] if _size(manager) > _FIELD_MANAGER_MAX else []
    if manager.isprintable():  # the common case, without a look at each character
        return errors
    offset = 0
    for char in manager:
        if not char.isprintable():
            errors.append(invalid(path, manager, f"invalid character U+{ord(char):04X} (at position {offset})"))
        offset += _size(char)
    return errors


class _Reader:
    """Reads typed members out of a metadata dict, recording a type error for each ill-typed one."""

    def __init__(self, meta: Mapping[str, Any], path: str, errors: list[FieldError]) -> None:
        self.meta, self.path, self.errors = meta, path, errors

    def _typed(self, key: str, kinds: type | tuple[type, ...], name: str, empty: Any) -> Any:
        value = self.meta.get(key)
        if value is None:
            return empty
        if isinstance(value, kinds) and not isinstance(value, bool):
            return value
        self.errors.append(type_invalid(f"{self.path}.{key}", value, f"must be of type {name}"))
        return empty

    def text(self, key: str) -> str:
        return self._typed(key, str, "string", "")

    def integer(self, key: str) -> int:
        return self._typed(key, int, "integer", 0)

    def string_map(self, key: str) -> dict[str, str]:
        value = self._typed(key, Mapping, "object", {})
        good = {name: item for name, item in value.items() if isinstance(item, str)}
        for name in sorted(set(value) - set(good)):
            self.errors.append(type_invalid(f"{self.path}.{key}[{name}]", value[name], "must be of type string"))
        return good

    def strings(self, key: str) -> list[str]:
        value = self._typed(key, list, "array", [])
        for index, item in enumerate(value):
            if not isinstance(item, str):
                self.errors.append(type_invalid(f"{self.path}.{key}[{index}]", item, "must be of type string"))
        return [item for item in value if isinstance(item, str)]

    def objects(self, key: str) -> list[Mapping[str, Any]]:
        value = self._typed(key, list, "array", [])
        for index, item in enumerate(value):
            if not isinstance(item, Mapping):
                self.errors.append(type_invalid(f"{self.path}.{key}[{index}]", item, "must be of type object"))
        return [item for item in value if isinstance(item, Mapping)]


def _version_of(api_version: str) -> tuple[str, str]:
    """Group and version as upstream splits an apiVersion; an unparsable one has neither."""
    if api_version in ("", "/") or api_version.count("/") > 1:
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


def _owner_reference_json(ref: Mapping[str, Any]) -> str:
    """The JSON of upstream's OwnerReference struct: its fields in declaration order, pointers omitted when nil."""
    members = [
        f"{json_string(key)}:{json_marshal(ref.get(key) or '')}" for key in ("apiVersion", "kind", "name", "uid")
    ]
    members += [
        f"{json_string(key)}:{json_marshal(ref[key])}"
        for key in ("controller", "blockOwnerDeletion")
        if ref.get(key) is not None
    ]
    return "{" + ",".join(members) + "}"


def validate_owner_references(refs: list[Mapping[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    first_controller = ""
    for ref in refs:
        reader = _Reader(ref, path, errors)
        api_version, kind, name, uid = (reader.text(key) for key in ("apiVersion", "kind", "name", "uid"))
        group, version = _version_of(api_version)
        if not version:
            errors.append(invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        for key, value in (("kind", kind), ("name", name), ("uid", uid)):
            if not value:
                errors.append(invalid(f"{path}.{key}", value, "must not be empty"))
        if (group, version, kind) == ("", "v1", "Event"):
            detail = f"{group}/{version}, Kind={kind} is disallowed from being an owner"
            errors.append(invalid(path, Rendered(_owner_reference_json(ref)), detail))
        if ref.get("controller") is True:
            current = f"{kind}/{name}"
            if not first_controller:
                first_controller = current
                continue
            everything = Rendered("[" + ",".join(_owner_reference_json(item) for item in refs) + "]")
            detail = (
                'Only one reference can have Controller set to true. Found "true" in references for '
                f"{first_controller} and {current}"
            )
            errors.append(invalid(path, everything, detail))
    return errors


def validate_finalizers(finalizers: list[str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for finalizer in finalizers:
        errors += [invalid(path, finalizer, message) for message in is_qualified_name(finalizer)]
    if FINALIZER_ORPHAN in finalizers and FINALIZER_FOREGROUND in finalizers:
        detail = f"finalizer {FINALIZER_ORPHAN} and {FINALIZER_FOREGROUND} cannot be both set"
        errors.append(invalid(path, finalizers, detail))
    return errors


def _standard_finalizer_names(finalizers: list[str], path: str, standard: Collection[str] | None) -> list[FieldError]:
    """Built-in types also demand a domain on every finalizer name that is not a standard one."""
    if standard is None:
        return []
    detail = "name is neither a standard finalizer name nor is it fully qualified"
    return [
        invalid(f"{path}[{index}]", finalizer, detail)
        for index, finalizer in enumerate(finalizers)
        if "/" not in finalizer and finalizer not in standard
    ]


def validate_managed_fields(entries: list[Mapping[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, entry in enumerate(entries):
        where = f"{path}[{index}]"
        reader = _Reader(entry, where, errors)
        operation, fields_type = reader.text("operation"), reader.text("fieldsType")
        if operation not in ("Apply", "Update"):
            errors.append(invalid(f"{where}.operation", operation, "must be `Apply` or `Update`"))
        if fields_type and fields_type != "FieldsV1":
            errors.append(invalid(f"{where}.fieldsType", fields_type, "must be `FieldsV1`"))
        errors += validate_field_manager(reader.text("manager"), f"{where}.manager")
        if _size(reader.text("subresource")) > _SUBRESOURCE_MAX:
            errors.append(too_long(f"{where}.subresource", _SUBRESOURCE_MAX))
    return errors


def _common(reader: _Reader) -> list[FieldError]:
    path = reader.path
    errors = validate_labels(reader.string_map("labels"), f"{path}.labels")
    errors += validate_annotations(reader.string_map("annotations"), f"{path}.annotations")
    errors += validate_owner_references(reader.objects("ownerReferences"), f"{path}.ownerReferences")
    return errors


def validate_object_meta(
    meta: Mapping[str, Any],
    *,
    namespaced: bool,
    name_validator: NameValidator,
    path: str = "metadata",
    standard_finalizers: Collection[str] | None = GENERIC_FINALIZERS,
) -> list[FieldError]:
    """Metadata checks on create, after name generation.

    `standard_finalizers` are the finalizer names allowed without a domain, as built-in types demand;
    None skips that rule, as upstream does for custom resources.
    """
    errors: list[FieldError] = []
    reader = _Reader(meta, path, errors)
    generate_name, name, namespace = reader.text("generateName"), reader.text("name"), reader.text("namespace")
    if generate_name:
        errors += [invalid(f"{path}.generateName", generate_name, m) for m in name_validator(generate_name, True)]
    if not name:
        errors.append(required(f"{path}.name", "name or generateName is required"))
    else:
        errors += [invalid(f"{path}.name", name, message) for message in name_validator(name, False)]
    if namespaced:
        if not namespace:
            errors.append(required(f"{path}.namespace"))
        else:
            errors += [invalid(f"{path}.namespace", namespace, m) for m in name_is_dns_label(namespace, False)]
    elif namespace:
        errors.append(forbidden(f"{path}.namespace", "not allowed on this type"))
    generation = reader.integer("generation")
    if generation < 0:
        errors.append(invalid(f"{path}.generation", generation, "must be greater than or equal to 0"))
    errors += _common(reader)
    finalizers = reader.strings("finalizers")
    errors += validate_finalizers(finalizers, f"{path}.finalizers")
    errors += validate_managed_fields(reader.objects("managedFields"), f"{path}.managedFields")
    errors += _standard_finalizer_names(finalizers, f"{path}.finalizers", standard_finalizers)
    return errors


_IMMUTABLE_TEXT: Final = ("name", "namespace", "uid")
_IMMUTABLE_OPTIONAL: Final = ("creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds")


def validate_object_meta_update(
    new: Mapping[str, Any],
    old: Mapping[str, Any],
    path: str = "metadata",
    *,
    standard_finalizers: Collection[str] | None = GENERIC_FINALIZERS,
) -> list[FieldError]:
    """Metadata checks on update: identity fields are immutable and generation never goes back."""
    errors: list[FieldError] = []
    reader = _Reader(new, path, errors)
    old_reader = _Reader(old, path, [])
    finalizers = reader.strings("finalizers")
    if old.get("deletionTimestamp") is not None:
        added = sorted(set(finalizers) - set(old_reader.strings("finalizers")))
        if added:
            shown = "[]string{" + ", ".join(quote(name) for name in added) + "}"
            detail = f"no new finalizers can be added if the object is being deleted, found new finalizers {shown}"
            errors.append(forbidden(f"{path}.finalizers", detail))
    resource_version = reader.text("resourceVersion")
    if not resource_version:
        errors.append(invalid(f"{path}.resourceVersion", resource_version, "must be specified for an update"))
    generation = reader.integer("generation")
    if generation < old_reader.integer("generation"):
        errors.append(invalid(f"{path}.generation", generation, "must not be decremented"))
    for key in _IMMUTABLE_TEXT:
        value = new.get(key) or ""
        if value != (old.get(key) or ""):
            errors.append(invalid(f"{path}.{key}", value, "field is immutable"))
    for key in _IMMUTABLE_OPTIONAL:
        if new.get(key) != old.get(key):
            errors.append(invalid(f"{path}.{key}", new.get(key), "field is immutable"))
    errors += _common(reader)
    errors += validate_managed_fields(reader.objects("managedFields"), f"{path}.managedFields")
    errors += _standard_finalizer_names(finalizers, f"{path}.finalizers", standard_finalizers)
    return errors
