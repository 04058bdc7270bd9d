"""CustomResourceDefinition validation, as upstream's `apiextensions/validation` (release 1.36).

Names (plural, singular, kind, listKind, short names, categories; `metadata.name` must be
`<plural>.<group>`), the group, the scope, the versions (unique DNS-1035 names, exactly one storage
version, deprecation warnings), each version's schema (`crd_schemas`), subresources, printer
columns and selectable fields, the conversion strategy, `preserveUnknownFields`, status names and
`status.storedVersions`. On update, group and plural never change, kind and scope not once the CRD
is Established, and checks the stored CRD already failed are relaxed, as upstream does.

Paths and texts are upstream's internal ones: the conversion webhook is reported at
`spec.conversion.webhookClientConfig` and its versions at `spec.conversion.conversionReviewVersions`.
`status.storedVersions` is checked when present: the serving strategy fills it on create.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.admission_webhooks import _service as webhook_service_errors
from svc.api.validation.admission_webhooks import _url as webhook_url_errors
from svc.api.validation.crd_schemas import SchemaOptions, resolve_field_path, schema_errors
from svc.api.validation.crd_structural import validate_structural
from svc.api.validation.engine import Check, KindRules, Obj, go_struct, items, lookup, mapping, text
from svc.machinery.field_errors import (
    FieldError,
    Rendered,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_many,
)
from svc.machinery.gotext import json_marshal
from svc.machinery.validation import is_dns1035_label, is_dns1123_subdomain

GROUP: Final = "apiextensions.k8s.io"
SCOPES: Final = ("Cluster", "Namespaced")
CONVERSION_STRATEGIES: Final = ("None", "Webhook")
REVIEW_VERSIONS: Final = ("v1", "v1beta1")
COLUMN_TYPES: Final = ("boolean", "date", "integer", "number", "string")
COLUMN_FORMATS: Final = ("byte", "date", "date-time", "double", "float", "int32", "int64", "password")
MAX_SELECTABLE_FIELDS: Final = 8
IMMUTABLE: Final = "field is immutable"
_VERSION_MEMBERS: Final = (
    "name",
    "served",
    "storage",
    "deprecated",
    "deprecationWarning",
    "schema",
    "subresources",
    "additionalPrinterColumns",
    "selectableFields",
)
_VERSION_ZERO: Final = {"name": "", "served": False, "storage": False, "deprecated": False}
_MAX_DEPRECATION_WARNING: Final = 256
_SELECTABLE_TYPES: Final = (
    "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."
)


def _versions_value(spec: Any) -> Any:
    """`spec.versions` as upstream prints its internal slice (JSON with Go field names)."""
    versions = items(lookup(spec, "versions"))
    if not versions:
        return None
    rendered = [go_struct(version, _VERSION_MEMBERS, _VERSION_ZERO).text for version in versions]
    return Rendered("[" + ",".join(rendered) + "]")


def _dns1035(value: str, path: str) -> list[FieldError]:
    messages = is_dns1035_label(value)
    return [invalid(path, value, ",".join(messages))] if messages else []


def _mixed_case(value: str, path: str) -> list[FieldError]:
    messages = is_dns1035_label(value.lower())
    if not value or not messages:
        return []
    return [invalid(path, value, "may have mixed case, but should otherwise match: " + ",".join(messages))]


def names_errors(names: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateCustomResourceDefinitionNames` (spec.names and status.acceptedNames)."""
    errors: list[FieldError] = []
    plural, singular = text(names, "plural"), text(names, "singular")
    kind, list_kind = text(names, "kind"), text(names, "listKind")
    if plural:
        errors += _dns1035(plural, f"{path}.plural")
    if singular:
        errors += _dns1035(singular, f"{path}.singular")
    errors += _mixed_case(kind, f"{path}.kind")
    errors += _mixed_case(list_kind, f"{path}.listKind")
    for index, short in enumerate(items(lookup(names, "shortNames"))):
        errors += _dns1035(str(short), f"{path}.shortNames[{index}]")
    if kind and kind == list_kind:
        errors.append(invalid(f"{path}.listKind", list_kind, "kind and listKind may not be the same"))
    for index, category in enumerate(items(lookup(names, "categories"))):
        errors += _dns1035(str(category), f"{path}.categories[{index}]")
    return errors


def _metadata_name(crd: Any, _: str) -> list[FieldError]:
    name = text(crd, "metadata.name")
    wanted = f"{text(crd, 'spec.names.plural')}.{text(crd, 'spec.group')}"
    if name and name != wanted:
        return [invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group')]
    return []


def _group(spec: Any) -> list[FieldError]:
    group = text(spec, "group")
    if not group:
        return [required("spec.group")]
    if messages := is_dns1123_subdomain(group):
        return [invalid("spec.group", group, ",".join(messages))]
    if "." not in group:
        return [invalid("spec.group", group, "should be a domain with at least one dot")]
    return []


def _enum(value: Any, path: str, accepted: tuple[str, ...]) -> list[FieldError]:
    if value in (None, ""):
        return [required(path)]
    return [] if value in accepted else [not_supported(path, value, accepted)]


def _deprecation_warning(version: Any, path: str) -> list[FieldError]:
    if not isinstance(version, Mapping) or "deprecationWarning" not in version:
        return []
    warning = version.get("deprecationWarning")
    if warning is None:
        return []
    where = f"{path}.deprecationWarning"
    if version.get("deprecated") is not True:
        return [invalid(where, warning, "can only be set for deprecated versions")]
    messages: list[str] = []
    warning = str(warning)
    if len(warning.encode()) > _MAX_DEPRECATION_WARNING:
        messages.append("must be <= 256 characters long")
    if not warning:
        messages.append("must not be an empty string")
    offset = 0
    for char in warning:
        category = unicodedata.category(char)
        if category == "Cc":
            messages.append(f"must only contain printable UTF-8 characters; control character found at index {offset}")
            break
        if category in ("Cf", "Cs", "Co", "Cn", "Zl", "Zp") or (category == "Zs" and char != " "):
            messages.append(
                f"must only contain printable UTF-8 characters; non-printable character found at index {offset}"
            )
            break
        offset += len(char.encode())
    return [invalid(where, warning, message) for message in messages]


def _simple_json_path(value: str, path: str) -> list[FieldError]:
    if not value:
        return [invalid(path, value, "must not be empty")]
    if not value.startswith("."):
        return [invalid(path, value, "must be a simple json path starting with .")]
    return []


def _subresources(subresources: Any, path: str) -> list[FieldError]:
    scale = lookup(subresources, "scale")
    if not isinstance(scale, Mapping):
        return []
    errors: list[FieldError] = []
    for key, prefixes, detail in (
        ("specReplicasPath", (".spec.",), "should be a json path under .spec"),
        ("statusReplicasPath", (".status.",), "should be a json path under .status"),
    ):
        value = text(scale, key)
        where = f"{path}.scale.{key}"
        if not value:
            errors.append(required(where))
        elif found := _simple_json_path(value, where):
            errors += found
        elif not value.startswith(prefixes):
            errors.append(invalid(where, value, detail))
    selector = text(scale, "labelSelectorPath")
    if selector:
        where = f"{path}.scale.labelSelectorPath"
        if found := _simple_json_path(selector, where):
            errors += found
        elif not selector.startswith((".spec.", ".status.")):
            errors.append(invalid(where, selector, "should be a json path under either .spec or .status"))
    return errors


def _column(column: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not text(column, "name"):
        errors.append(required(f"{path}.name"))
    kind = text(column, "type")
    types_text = f"must be one of {','.join(COLUMN_TYPES)}"
    if not kind:
        errors.append(required(f"{path}.type", types_text))
    elif kind not in COLUMN_TYPES:
        errors.append(invalid(f"{path}.type", kind, types_text))
    fmt = text(column, "format")
    if fmt and fmt not in COLUMN_FORMATS:
        errors.append(invalid(f"{path}.format", fmt, f"must be one of {','.join(COLUMN_FORMATS)}"))
    json_path = text(column, "jsonPath")
    if not json_path:
        errors.append(required(f"{path}.JSONPath"))
    else:
        errors += _simple_json_path(json_path, f"{path}.JSONPath")
    return errors


def _selectable_fields(version: Any, path: str) -> list[FieldError]:
    fields = items(lookup(version, "selectableFields"))
    if not fields:
        return []
    schema = lookup(version, "schema.openAPIV3Schema")
    if not isinstance(schema, Mapping):
        detail = "selectableFields may only be set when version.schema.openAPIV3Schema is not included"
        return [invalid(f"{path}.selectableFields", "", detail)]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, entry in enumerate(fields):
        where = f"{path}.selectableFields[{index}].jsonPath"
        json_path = text(entry, "jsonPath")
        if not json_path:
            errors.append(required(where))
            continue
        target = resolve_field_path(schema, json_path, allow_keys=False)
        if target is None:
            errors.append(invalid(where, json_path, "is an invalid path: does not refer to a valid field"))
            continue
        if json_path.startswith(".metadata"):
            errors.append(invalid(where, json_path, "must not point to fields in metadata"))
        if target.get("type") not in ("string", "boolean", "integer"):
            detail = _SELECTABLE_TYPES
            errors.append(invalid(where, json_path, detail))
        if json_path in seen:
            errors.append(duplicate(where, json_path))
        seen.add(json_path)
    if len(seen) > MAX_SELECTABLE_FIELDS:
        errors.append(too_many(f"{path}.selectableFields", len(seen), MAX_SELECTABLE_FIELDS))
    return errors


def _version(version: Any, path: str, options: SchemaOptions) -> list[FieldError]:
    errors = _deprecation_warning(version, path)
    status_enabled = isinstance(lookup(version, "subresources.status"), Mapping)
    version_options = SchemaOptions(**{**options.__dict__, "status_enabled": status_enabled})
    schema = lookup(version, "schema.openAPIV3Schema")
    errors += schema_errors(schema, f"{path}.schema.openAPIV3Schema", version_options)
    errors += _subresources(lookup(version, "subresources"), f"{path}.subresources")
    for index, column in enumerate(items(lookup(version, "additionalPrinterColumns"))):
        errors += _column(column, f"{path}.additionalPrinterColumns[{index}]")
    errors += _selectable_fields(version, path)
    return errors


def _has_defaults(schema: Any) -> bool:
    if isinstance(schema, Mapping):
        return "default" in schema or any(_has_defaults(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_has_defaults(value) for value in schema)
    return False


def _conversion(spec: Any, require_recognized: bool) -> list[FieldError]:
    conversion = lookup(spec, "conversion")
    if not isinstance(conversion, Mapping):
        return []
    errors: list[FieldError] = []
    strategy = conversion.get("strategy")
    if strategy not in (None, "None") and lookup(spec, "preserveUnknownFields") is True:
        errors.append(
            invalid("spec.conversion.strategy", strategy, "must be None if spec.preserveUnknownFields is true")
        )
    errors += _enum(strategy, "spec.conversion.strategy", CONVERSION_STRATEGIES)
    webhook = conversion.get("webhook") if isinstance(conversion.get("webhook"), Mapping) else {}
    client_config = webhook.get("clientConfig")
    review_versions = items(webhook.get("conversionReviewVersions"))
    if strategy == "Webhook":
        if not isinstance(client_config, Mapping):
            errors.append(required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook"))
        else:
            url, service = client_config.get("url"), client_config.get("service")
            if (url is None) == (service is None):
                errors.append(
                    required("spec.conversion.webhookClientConfig", "exactly one of url or service is required")
                )
            elif url is not None:
                errors += webhook_url_errors(str(url), "spec.conversion.webhookClientConfig.url")
            else:
                errors += webhook_service_errors(service, "spec.conversion.webhookClientConfig.service")
        errors += _review_versions(review_versions, require_recognized)
    else:
        if client_config is not None:
            detail = "should not be set when strategy is not set to Webhook"
            errors.append(forbidden("spec.conversion.webhookClientConfig", detail))
        if review_versions:
            detail = "should not be set when strategy is not set to Webhook"
            errors.append(forbidden("spec.conversion.conversionReviewVersions", detail))
    return errors


def _review_versions(versions: list[Any], require_recognized: bool) -> list[FieldError]:
    path = "spec.conversion.conversionReviewVersions"
    if not versions:
        return [required(path)]
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, version in enumerate(versions):
        version = version if isinstance(version, str) else json_marshal(version)
        if version in seen:
            errors.append(invalid(f"{path}[{index}]", version, "duplicate version"))
            continue
        seen.add(version)
        errors += [invalid(f"{path}[{index}]", version, message) for message in is_dns1035_label(str(version))]
    if require_recognized and not seen & set(REVIEW_VERSIONS):
        errors.append(invalid(path, versions, f"must include at least one of {', '.join(REVIEW_VERSIONS)}"))
    return errors


def spec_errors(spec: Any, options: SchemaOptions, *, require_recognized_review: bool = True) -> list[FieldError]:
    """Upstream's `validateCustomResourceDefinitionSpec` for a v1 CRD."""
    errors = _group(spec)
    errors += _enum(lookup(spec, "scope"), "spec.scope", SCOPES)
    versions = items(lookup(spec, "versions"))
    for index, version in enumerate(versions):
        if not isinstance(lookup(version, "schema.openAPIV3Schema"), Mapping):
            errors.append(required(f"spec.versions[{index}].schema.openAPIV3Schema", "schemas are required"))
    preserve = lookup(spec, "preserveUnknownFields")
    if any(_has_defaults(lookup(version, "schema.openAPIV3Schema")) for version in versions) and preserve is True:
        errors.append(
            invalid("spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema")
        )
    names: set[Any] = set()
    unique = True
    storage = 0
    for index, version in enumerate(versions):
        name = lookup(version, "name")
        storage += lookup(version, "storage") is True
        key = name if isinstance(name, str) else json_marshal(name)
        unique = unique and key not in names
        names.add(key)
        errors += _dns1035(name if isinstance(name, str) else "", f"spec.versions[{index}].name")
        errors += _version(version, f"spec.versions[{index}]", options)
    if not unique:
        errors.append(invalid("spec.versions", _versions_value(spec), "must contain unique version names"))
    if storage != 1:
        errors.append(
            invalid("spec.versions", _versions_value(spec), "must have exactly one version marked as storage version")
        )
    for key in ("plural", "singular", "kind", "listKind"):
        if not text(spec, f"names.{key}"):
            errors.append(required(f"spec.names.{key}"))
    errors += names_errors(lookup(spec, "names"), "spec.names")
    errors += _conversion(spec, require_recognized_review)
    return errors


def stored_versions_errors(crd: Any) -> list[FieldError]:
    """Upstream's `ValidateCustomResourceDefinitionStoredVersions`, when the status carries them."""
    status = mapping(crd, "status")
    if "storedVersions" not in status:
        return []
    stored = [
        version if isinstance(version, str) else json_marshal(version)
        for version in items(status.get("storedVersions"))
    ]
    path = "status.storedVersions"
    if not stored:
        return [invalid(path, stored, "must have at least one stored version")]
    errors: list[FieldError] = []
    positions = {version: index for index, version in enumerate(stored)}
    for version in items(lookup(crd, "spec.versions")):
        name = lookup(version, "name")
        name = name if isinstance(name, str) else json_marshal(name)
        if lookup(version, "storage") is True and name not in positions:
            errors.append(invalid(path, stored, f"must have the storage version {name}"))
        positions.pop(name, None)
    for version, index in positions.items():
        detail = (
            f"missing from spec.versions; {version} was previously a storage version, and must remain in "
            f"spec.versions until a storage migration ensures no data remains persisted in {version} and "
            f"removes {version} from status.storedVersions"
        )
        errors.append(invalid(f"{path}[{index}]", version, detail))
    return errors


def _preserve_unknown_fields(crd: Any, old: Any = None) -> list[FieldError]:
    if old is not None and lookup(old, "spec.preserveUnknownFields") is True:
        return []
    if lookup(crd, "spec.preserveUnknownFields") is True:
        detail = (
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"
        )
        return [invalid("spec.preserveUnknownFields", True, detail)]
    return []


def validate(
    crd: Any, options: SchemaOptions | None = None, *, require_recognized_review: bool = True
) -> list[FieldError]:
    """A CRD on create (or the create half of an update, with relaxed `options`)."""
    errors = _metadata_name(crd, "")
    errors += spec_errors(
        mapping(crd, "spec"), options or SchemaOptions(), require_recognized_review=require_recognized_review
    )
    errors += names_errors(lookup(crd, "status.acceptedNames"), "status.acceptedNames")
    errors += stored_versions_errors(crd)
    return errors


def _create(crd: Any, _: str) -> list[FieldError]:
    return validate(crd) + _preserve_unknown_fields(crd)


def _established(crd: Any) -> bool:
    return any(
        lookup(condition, "type") == "Established" and lookup(condition, "status") == "True"
        for condition in items(lookup(crd, "status.conditions"))
    )


def _non_structural(old: Any) -> bool:
    return any(
        isinstance(schema, Mapping) and validate_structural(schema, "")
        for schema in (lookup(version, "schema.openAPIV3Schema") for version in items(lookup(old, "spec.versions")))
    )


def _update_options(new: Any, old: Any) -> SchemaOptions:
    """What the stored CRD already broke stays allowed (upstream's `ValidateCustomResourceDefinitionUpdate`);
    versions whose schema did not change are not held to the per-expression cost limit."""
    old_schemas = [
        (lookup(version, "name"), lookup(version, "schema")) for version in items(lookup(old, "spec.versions"))
    ]
    new_versions = items(lookup(new, "spec.versions"))
    unchanged = bool(new_versions) and all(
        (lookup(version, "name"), lookup(version, "schema")) in old_schemas for version in new_versions
    )
    return SchemaOptions(require_structural=not _non_structural(old), suppress_per_expression_cost=unchanged)


def validate_update(new: Any, old: Any) -> list[FieldError]:
    """A CRD on update: the create rules with the stored CRD's relaxations, then the immutable fields."""
    old_review = items(lookup(old, "spec.conversion.webhook.conversionReviewVersions"))
    require_recognized = not old_review or any(version in REVIEW_VERSIONS for version in old_review)
    errors = validate(new, _update_options(new, old), require_recognized_review=require_recognized)
    if _established(old):
        for path in ("spec.scope", "spec.names.kind"):
            if lookup(new, path) != lookup(old, path):
                errors.append(invalid(path, lookup(new, path), IMMUTABLE))
    for path in ("spec.group", "spec.names.plural"):
        if lookup(new, path) != lookup(old, path):
            errors.append(invalid(path, lookup(new, path), IMMUTABLE))
    return errors + _preserve_unknown_fields(new, old)


class _CrdRules(KindRules):
    """A CRD's update re-runs the create rules under options taken from the old CRD, so the
    engine's usual create-then-compare split does not fit: the update check does both."""

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_update(new, old)


RULES: Final[dict[tuple[str, str], KindRules]] = {
    (GROUP, "CustomResourceDefinition"): _CrdRules(create=(Check(_create),)),
}
