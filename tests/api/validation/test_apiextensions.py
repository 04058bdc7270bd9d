"""CustomResourceDefinition validation: names, versions, conversion, columns, selectable fields,
stored versions and update rules, with upstream's (field, reason, detail)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, FORBIDDEN = "FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden"
NOT_SUPPORTED, DUPLICATE, TOO_MANY = "FieldValueNotSupported", "FieldValueDuplicate", "FieldValueTooMany"
GROUP, KIND = "apiextensions.k8s.io", "CustomResourceDefinition"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "color": {"type": "string", "enum": ["red", "blue"]},
            },
        },
        "status": {"type": "object", "properties": {"ready": {"type": "integer"}}},
    },
}
CRD: dict[str, Any] = {
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": SCHEMA}}],
    },
}
V0 = "spec.versions[0]"
S0 = f"{V0}.schema.openAPIV3Schema"


def check(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[tuple[str, str, str]]:
    return causes(GROUP, KIND, obj, old)


def test_a_valid_crd_passes() -> None:
    assert check(CRD) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (
            "metadata.name",
            "gadgets.example.com",
            [("metadata.name", INVALID, 'must be spec.names.plural+"."+spec.group')],
        ),
        (
            "spec.group",
            "example",
            [("spec.group", INVALID, "should be a domain with at least one dot"), ("metadata.name", INVALID, "")][::-1],
        ),
        ("spec.scope", "Global", [("spec.scope", NOT_SUPPORTED, 'supported values: "Cluster", "Namespaced"')]),
        (
            "spec.names.plural",
            "Widgets",
            [
                ("metadata.name", INVALID, "must be spec.names.plural"),
                ("spec.names.plural", INVALID, "a DNS-1035 label must consist of lower case"),
            ],
        ),
        (
            "spec.names.kind",
            "Wid_get",
            [("spec.names.kind", INVALID, "may have mixed case, but should otherwise match")],
        ),
        ("spec.names.listKind", "Widget", [("spec.names.listKind", INVALID, "kind and listKind may not be the same")]),
        ("spec.names.shortNames", ["w", "W1"], [("spec.names.shortNames[1]", INVALID, "a DNS-1035 label")]),
        ("spec.names.plural", "", [("metadata.name", INVALID, "must be spec"), ("spec.names.plural", REQUIRED, "")]),
    ],
)
def test_names_group_and_scope(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(check(with_path(CRD, path, value)), expected)


def test_exactly_one_storage_version_with_unique_names() -> None:
    second = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": SCHEMA}}
    assert_causes(
        check(with_path(CRD, "spec.versions.1", second)),
        [
            ("spec.versions", INVALID, "must contain unique version names"),
            ("spec.versions", INVALID, "must have exactly one version marked as storage version"),
        ],
    )


def test_a_version_name_is_a_dns_label_and_needs_a_schema() -> None:
    crd = with_path(CRD, "spec.versions.0.name", "V1")
    crd = with_path(crd, "spec.versions.0.schema", ...)
    assert_causes(
        check(crd),
        [
            (f"{S0}", REQUIRED, "schemas are required"),
            (f"{V0}.name", INVALID, "a DNS-1035 label must consist of lower case"),
        ],
    )


def test_a_deprecation_warning_needs_a_deprecated_version() -> None:
    assert_causes(
        check(with_path(CRD, "spec.versions.0.deprecationWarning", "old")),
        [(f"{V0}.deprecationWarning", INVALID, "can only be set for deprecated versions")],
    )


def test_webhook_conversion_needs_a_client_config_and_review_versions() -> None:
    assert_causes(
        check(with_path(CRD, "spec.conversion", {"strategy": "Webhook"})),
        [
            ("spec.conversion.webhookClientConfig", REQUIRED, "required when strategy is set to Webhook"),
            ("spec.conversion.conversionReviewVersions", REQUIRED, ""),
        ],
    )


def test_webhook_review_versions_must_include_a_known_one() -> None:
    conversion = {
        "strategy": "Webhook",
        "webhook": {"clientConfig": {"url": "https://hook.example.com/convert"}, "conversionReviewVersions": ["v9"]},
    }
    assert_causes(
        check(with_path(CRD, "spec.conversion", conversion)),
        [("spec.conversion.conversionReviewVersions", INVALID, "must include at least one of v1, v1beta1")],
    )


def test_none_conversion_forbids_webhook_settings() -> None:
    conversion = {"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}}
    assert_causes(
        check(with_path(CRD, "spec.conversion", conversion)),
        [
            (
                "spec.conversion.conversionReviewVersions",
                FORBIDDEN,
                "should not be set when strategy is not set to Webhook",
            )
        ],
    )


def test_preserve_unknown_fields_true_is_refused() -> None:
    assert_causes(
        check(with_path(CRD, "spec.preserveUnknownFields", True)),
        [
            ("spec.preserveUnknownFields", INVALID, "must be false in order to use defaults in the schema"),
            ("spec.preserveUnknownFields", INVALID, "cannot set to true, set x-kubernetes-preserve-unknown-fields"),
        ],
    )


def test_printer_columns_need_a_known_type_and_a_json_path() -> None:
    columns = [{"name": "Age", "type": "time", "jsonPath": "metadata.creationTimestamp", "format": "weird"}]
    assert_causes(
        check(with_path(CRD, "spec.versions.0.additionalPrinterColumns", columns)),
        [
            (f"{V0}.additionalPrinterColumns[0].type", INVALID, "must be one of boolean,date,integer,number,string"),
            (f"{V0}.additionalPrinterColumns[0].format", INVALID, "must be one of byte,date,date-time"),
            (f"{V0}.additionalPrinterColumns[0].JSONPath", INVALID, "must be a simple json path starting with ."),
        ],
    )


def test_scale_paths_live_under_spec_and_status() -> None:
    scale = {"specReplicasPath": ".status.replicas", "statusReplicasPath": ""}
    assert_causes(
        check(with_path(CRD, "spec.versions.0.subresources", {"scale": scale})),
        [
            (f"{V0}.subresources.scale.specReplicasPath", INVALID, "should be a json path under .spec"),
            (f"{V0}.subresources.scale.statusReplicasPath", REQUIRED, ""),
        ],
    )


def test_selectable_fields_point_to_declared_scalars() -> None:
    fields = [
        {"jsonPath": ".spec.color"},
        {"jsonPath": ".spec.nope"},
        {"jsonPath": ".spec"},
        {"jsonPath": ".spec.color"},
    ]
    assert_causes(
        check(with_path(CRD, "spec.versions.0.selectableFields", fields)),
        [
            (f"{V0}.selectableFields[1].jsonPath", INVALID, "is an invalid path"),
            (f"{V0}.selectableFields[2].jsonPath", INVALID, "must point to a field of type string, boolean or integer"),
            (f"{V0}.selectableFields[3].jsonPath", DUPLICATE, ""),
        ],
    )


def test_stored_versions_must_keep_the_storage_version() -> None:
    crd = with_path(CRD, "status", {"storedVersions": ["v0"]})
    assert_causes(
        check(crd),
        [
            ("status.storedVersions", INVALID, "must have the storage version v1"),
            ("status.storedVersions[0]", INVALID, "missing from spec.versions; v0 was previously a storage version"),
        ],
    )


def test_group_and_plural_are_immutable_and_kind_once_established() -> None:
    old = with_path(CRD, "status", {"conditions": [{"type": "Established", "status": "True"}]})
    new = with_path(old, "spec.names.kind", "Gadget")
    new = with_path(new, "spec.names.listKind", "GadgetList")
    assert_causes(check(new, old), [("spec.names.kind", INVALID, "field is immutable")])
    assert check(new, CRD) == []


# -- the schema ------------------------------------------------------------------------------------


def schema_causes(schema: dict[str, Any], **version: Any) -> list[tuple[str, str, str]]:
    crd = copy.deepcopy(CRD)
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema
    crd["spec"]["versions"][0].update(version)
    return check(crd)


def spec_schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}}


def test_every_specified_field_needs_a_type() -> None:
    assert_causes(
        schema_causes(spec_schema(size={})),
        [(f"{S0}.properties[spec].properties[size].type", REQUIRED, "must not be empty for specified object fields")],
    )


def test_arrays_need_items_and_the_root_is_an_object() -> None:
    assert_causes(
        schema_causes({"type": "array"}),
        [(f"{S0}.items", REQUIRED, "must be specified"), (f"{S0}.type", INVALID, "must be object at the root")],
    )


def test_properties_and_additional_properties_exclude_each_other() -> None:
    field = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}
    assert_causes(
        schema_causes(spec_schema(m=field)),
        [(f"{S0}.properties[spec].properties[m].additionalProperties", FORBIDDEN, "mutual exclusive")],
    )


def test_junctors_hold_value_validations_only_on_declared_fields() -> None:
    schema = spec_schema(a={"type": "string"})
    schema["properties"]["spec"]["anyOf"] = [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}}]
    assert_causes(
        schema_causes(schema),
        [
            (f"{S0}.properties[spec].anyOf[1].properties[b].type", FORBIDDEN, "must be empty to be structural"),
            (
                f"{S0}.properties[spec].properties[b]",
                REQUIRED,
                f"because it is defined in {S0}.properties[spec].anyOf[1]",
            ),
        ],
    )


def test_int_or_string_any_of_is_structural() -> None:
    port = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert schema_causes(spec_schema(port=port)) == []


def test_root_metadata_may_only_restrict_name_and_generate_name() -> None:
    schema = {
        "type": "object",
        "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}},
    }
    assert_causes(
        schema_causes(schema),
        [(f"{S0}.properties[metadata]", FORBIDDEN, "must not specify anything other than name and generateName")],
    )
    fine = {
        "type": "object",
        "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}}},
    }
    assert schema_causes(fine) == []


def test_unsupported_openapi_constructs_are_forbidden() -> None:
    assert_causes(
        schema_causes(
            spec_schema(
                r={"type": "string", "$ref": "#/definitions/x"},
                u={"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            )
        ),
        [
            (f"{S0}.properties[spec].properties[r].$ref", FORBIDDEN, "$ref is not supported"),
            (f"{S0}.properties[spec].properties[u].uniqueItems", FORBIDDEN, "uniqueItems cannot be set to true"),
        ],
    )


def test_defaults_must_validate_and_be_pruned() -> None:
    assert_causes(
        schema_causes(
            spec_schema(
                n={"type": "integer", "maximum": 3, "default": 5},
                o={"type": "object", "properties": {"a": {"type": "string"}}, "default": {"a": "x", "b": 1}},
            )
        ),
        [
            (f"{S0}.properties[spec].properties[n].default", INVALID, "in body should be less than or equal to 3"),
            (f"{S0}.properties[spec].properties[o].default", INVALID, "must not have unknown fields"),
        ],
    )


def test_defaults_are_forbidden_in_top_level_metadata() -> None:
    schema = {"type": "object", "properties": {"metadata": {"type": "object", "default": {"name": "x"}}}}
    assert_causes(
        schema_causes(schema),
        [(f"{S0}.properties[metadata].default", FORBIDDEN, "must not be set in top-level metadata")],
    )


def test_list_type_map_needs_keys_that_are_required_scalars() -> None:
    items = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert_causes(
        schema_causes(
            spec_schema(
                l={
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name", "id"],
                    "items": items,
                }
            )
        ),
        [
            (
                f"{S0}.properties[spec].properties[l].x-kubernetes-list-map-keys",
                INVALID,
                "entries must all be names of item properties",
            ),
            (
                f"{S0}.properties[spec].properties[l].items.properties[name].default",
                REQUIRED,
                "must have a default or be a required property",
            ),
        ],
    )


def test_list_and_map_types_need_matching_types() -> None:
    assert_causes(
        schema_causes(
            spec_schema(
                s={"type": "string", "x-kubernetes-list-type": "set"},
                m={"type": "string", "x-kubernetes-map-type": "odd"},
            )
        ),
        [
            (
                f"{S0}.properties[spec].properties[s].type",
                INVALID,
                "must be array if x-kubernetes-list-type is specified",
            ),
            (
                f"{S0}.properties[spec].properties[m].type",
                INVALID,
                "must be object if x-kubernetes-map-type is specified",
            ),
            (f"{S0}.properties[spec].properties[m].x-kubernetes-map-type", NOT_SUPPORTED, '"atomic", "granular"'),
        ],
    )


def rules_schema(*rules: dict[str, Any]) -> dict[str, Any]:
    schema = spec_schema(
        replicas={"type": "integer"},
        tags={"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
    )
    schema["properties"]["spec"]["x-kubernetes-validations"] = list(rules)
    return schema


RULES = f"{S0}.properties[spec].x-kubernetes-validations"


def test_a_valid_rule_passes() -> None:
    assert schema_causes(rules_schema({"rule": "self.replicas <= 5", "message": "too many"})) == []


def test_a_rule_that_does_not_compile_is_reported_with_cel_go_text() -> None:
    found = schema_causes(rules_schema({"rule": "self.replicas >"}))
    assert_causes(found, [(f"{RULES}[0].rule", INVALID, "compilation failed: ERROR: <input>:1:")])


def test_a_rule_on_an_undeclared_field_fails_type_checking() -> None:
    found = schema_causes(rules_schema({"rule": "self.nope == 1"}))
    assert_causes(
        found, [(f"{RULES}[0].rule", INVALID, "compilation failed: ERROR: <input>:1:5: undefined field 'nope'")]
    )


def test_a_message_expression_must_be_a_string() -> None:
    found = schema_causes(rules_schema({"rule": "self.replicas > 0", "messageExpression": "1"}))
    assert_causes(found, [(f"{RULES}[0].messageExpression", INVALID, "must evaluate to a string")])


def test_rule_entry_static_checks() -> None:
    found = schema_causes(
        rules_schema(
            {"rule": " "},
            {"rule": "self.replicas > 0", "reason": "Bad"},
            {"rule": "self.replicas > 0", "fieldPath": ".missing"},
        )
    )
    assert_causes(
        found,
        [
            (f"{RULES}[0].rule", REQUIRED, "rule is not specified"),
            (f"{RULES}[1].reason", NOT_SUPPORTED, '"FieldValueDuplicate", "FieldValueForbidden"'),
            (f"{RULES}[2].fieldPath", INVALID, "fieldPath must be a valid path"),
        ],
    )


def test_an_unbounded_rule_is_over_the_cost_limit() -> None:
    schema = spec_schema(tags={"type": "array", "items": {"type": "string"}})
    schema["properties"]["spec"]["properties"]["tags"]["x-kubernetes-validations"] = [
        {"rule": "self.all(x, self.all(y, x == y))"}
    ]
    found = schema_causes(schema)
    assert found[0][:2] == (f"{S0}.properties[spec].properties[tags].x-kubernetes-validations[0].rule", FORBIDDEN)
    assert "estimated rule cost exceeds budget by factor of" in found[0][2]
    assert found[-1][:2] == (S0, FORBIDDEN)


def test_old_self_is_refused_below_an_atomic_list() -> None:
    schema = spec_schema(tags={"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 5}})
    schema["properties"]["spec"]["properties"]["tags"]["items"]["x-kubernetes-validations"] = [
        {"rule": "self == oldSelf"}
    ]
    assert_causes(
        schema_causes(schema),
        [
            (
                f"{S0}.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule",
                INVALID,
                "oldSelf cannot be used on the uncorrelatable portion",
            )
        ],
    )


def test_optional_old_self_needs_old_self_in_the_rule() -> None:
    found = schema_causes(rules_schema({"rule": "self.replicas > 0", "optionalOldSelf": True}))
    assert_causes(found, [(f"{RULES}[0].optionalOldSelf", INVALID, "may not be set if oldSelf is not used in rule")])


def test_status_subresource_restricts_the_root() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    found = schema_causes(schema, subresources={"status": {}})
    assert_causes(
        found,
        [
            (S0, INVALID, "fields are allowed at the root of the schema if the status subresource is enabled"),
            (f"{S0}.additionalProperties", FORBIDDEN, "must not be used at the root"),
        ],
    )


def test_an_update_keeps_what_the_stored_crd_already_broke() -> None:
    old = copy.deepcopy(CRD)
    old["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = spec_schema(size={})
    new = copy.deepcopy(old)
    new["spec"]["names"]["shortNames"] = ["wd"]
    assert check(new, old) == []
    assert check(new) != []


def test_an_unchanged_schema_is_not_held_to_the_per_rule_cost_limit() -> None:
    item = {"type": "string", "maxLength": 100, "x-kubernetes-validations": [{"rule": "self.contains('abc')"}]}
    old = copy.deepcopy(CRD)
    old["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = spec_schema(
        tags={"type": "array", "maxItems": 2_000_000, "items": item}
    )
    new = with_path(old, "spec.names.shortNames", ["wd"])
    (found,) = check(new)
    assert found[1:] == (FORBIDDEN, found[2]) and "estimated rule cost exceeds budget by factor of 8.2x" in found[2]
    assert check(new, old) == []


def test_an_expensive_message_expression_is_over_the_cost_limit() -> None:
    schema = spec_schema(tags={"type": "array", "items": {"type": "string"}})
    rule = {"rule": "self.size() < 5", "messageExpression": "self.map(x, self.map(y, x + y).join(',')).join(', ')"}
    schema["properties"]["spec"]["properties"]["tags"]["x-kubernetes-validations"] = [rule]
    found = schema_causes(schema)
    where = f"{S0}.properties[spec].properties[tags].x-kubernetes-validations[0].messageExpression"
    assert found[0][:2] == (where, FORBIDDEN)
    assert found[0][2].startswith("Forbidden: estimated messageExpression cost exceeds budget by factor of")


def test_schema_keywords_of_the_wrong_json_type_are_reported() -> None:
    found = schema_causes(spec_schema(n={"type": ["integer"], "maxItems": "3"}))
    assert (
        f"{S0}.properties[spec].properties[n].type",
        INVALID,
        'Invalid value: ["integer"]: must be of type string',
    ) in found
    assert (
        f"{S0}.properties[spec].properties[n].maxItems",
        INVALID,
        'Invalid value: "3": must be of type integer',
    ) in found
