"""Name, label, annotation and finalizer syntax, and the metadata checks, with upstream's texts."""

from __future__ import annotations

from typing import Any

import pytest

from svc.machinery.validation import (
    GENERIC_FINALIZERS,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    is_valid_path_segment_name,
    name_is_dns1035_label,
    name_is_dns_label,
    name_is_dns_subdomain,
    name_is_path_segment,
    validate_object_meta,
    validate_object_meta_update,
)

SUBDOMAIN_REGEX = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_REGEX = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_REGEX = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
KEY_NAME_REGEX = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_REGEX = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize("value", ["a", "example.com", "a-b.c-d", "0", "a" * 253])
def test_dns_subdomain_accepts(value: str) -> None:
    assert is_dns1123_subdomain(value) == []


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("Foo", [SUBDOMAIN_REGEX]),
        ("a_b", [SUBDOMAIN_REGEX]),
        ("", [SUBDOMAIN_REGEX]),
        ("a" * 254, ["must be no more than 253 characters"]),
        ("-" * 254, ["must be no more than 253 characters", SUBDOMAIN_REGEX]),
    ],
)
def test_dns_subdomain_rejects(value: str, messages: list[str]) -> None:
    assert is_dns1123_subdomain(value) == messages


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("my-name", []),
        ("a.b", ["must not contain dots"]),
        ("-a", [LABEL_REGEX]),
        ("a" * 64, ["must be no more than 63 characters"]),
    ],
)
def test_dns_label(value: str, messages: list[str]) -> None:
    assert is_dns1123_label(value) == messages


@pytest.mark.parametrize(("value", "messages"), [("abc-123", []), ("1abc", [DNS1035_REGEX]), ("a.b", [DNS1035_REGEX])])
def test_dns1035_label(value: str, messages: list[str]) -> None:
    assert is_dns1035_label(value) == messages


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("MyName", []),
        ("example.com/My_Name.1", []),
        ("/a", ["prefix part must be non-empty"]),
        ("Example.com/a", ["prefix part " + SUBDOMAIN_REGEX]),
        ("a" * 254 + "/a", ["prefix part must be no more than 253 bytes"]),
        ("a" * 64, ["name part must be no more than 63 bytes"]),
        ("", ["name part must be non-empty", "name part " + KEY_NAME_REGEX]),
        ("a b", ["name part " + KEY_NAME_REGEX]),
        (
            "a/b/c",
            [
                "a valid label key " + KEY_NAME_REGEX + " with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')"
            ],
        ),
    ],
)
def test_qualified_name(value: str, messages: list[str]) -> None:
    assert is_qualified_name(value) == messages


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("", []),
        ("my_value.1", []),
        ("-a", [VALUE_REGEX]),
        ("a" * 64, ["must be no more than 63 bytes"]),
        ("é" * 32, ["must be no more than 63 bytes", VALUE_REGEX]),
    ],
)
def test_label_value(value: str, messages: list[str]) -> None:
    assert is_valid_label_value(value) == messages


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("", []),
        ("a:b", []),
        (".", ["may not be '.'"]),
        ("..", ["may not be '..'"]),
        ("a/b%c", ["may not contain '/'", "may not contain '%'"]),
    ],
)
def test_path_segment_name(value: str, messages: list[str]) -> None:
    assert is_valid_path_segment_name(value) == messages


def test_generate_name_may_end_in_a_dash() -> None:
    assert name_is_dns_subdomain("web-", True) == []


def test_name_may_not_end_in_a_dash() -> None:
    assert name_is_dns_subdomain("web-", False) == [SUBDOMAIN_REGEX]


def test_generate_name_masking_drops_the_character_before_the_dash() -> None:
    # Upstream replaces the last two bytes with 'a', so the dot before the dash goes unseen.
    assert name_is_dns_label("x.-", True) == []


def test_dns1035_generate_name() -> None:
    assert name_is_dns1035_label("1a-", True) == [DNS1035_REGEX]


def test_path_segment_prefix_skips_the_whole_name_rule() -> None:
    assert name_is_path_segment("..", True) == []
    assert name_is_path_segment("..", False) == ["may not be '..'"]


def _meta_errors(meta: dict[str, Any], *, namespaced: bool = True, **options: Any) -> list[str]:
    return [
        str(error)
        for error in validate_object_meta(meta, namespaced=namespaced, name_validator=name_is_dns_subdomain, **options)
    ]


def test_valid_metadata_has_no_errors() -> None:
    meta = {
        "name": "web",
        "namespace": "default",
        "labels": {"app": "web", "example.com/tier": ""},
        "annotations": {"Example.com/Note": "anything at all"},
        "finalizers": ["example.com/cleanup", "orphan"],
        "generation": 3,
    }
    assert _meta_errors(meta) == []


def test_name_or_generate_name_is_required() -> None:
    assert _meta_errors({"namespace": "ns"}) == ["metadata.name: Required value: name or generateName is required"]


def test_bad_name_uses_the_name_validator() -> None:
    assert _meta_errors({"name": "Web", "namespace": "ns"}) == [
        f'metadata.name: Invalid value: "Web": {SUBDOMAIN_REGEX}'
    ]


def test_bad_generate_name_is_reported_on_its_own_field() -> None:
    errors = _meta_errors({"generateName": "Web-", "name": "web-abcde", "namespace": "ns"})
    assert errors == [f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN_REGEX}']


def test_namespaced_object_needs_a_namespace() -> None:
    assert _meta_errors({"name": "a"}) == ["metadata.namespace: Required value"]


def test_namespace_must_be_a_dns_label() -> None:
    assert _meta_errors({"name": "a", "namespace": "a.b"}) == [
        'metadata.namespace: Invalid value: "a.b": must not contain dots'
    ]


def test_cluster_scoped_object_may_not_have_a_namespace() -> None:
    errors = _meta_errors({"name": "a", "namespace": "ns"}, namespaced=False)
    assert errors == ["metadata.namespace: Forbidden: not allowed on this type"]


def test_negative_generation() -> None:
    errors = _meta_errors({"name": "a", "namespace": "ns", "generation": -1})
    assert errors == ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]


def test_label_errors_name_the_labels_field() -> None:
    errors = _meta_errors({"name": "a", "namespace": "ns", "labels": {"a b": "-x"}})
    assert errors == [
        f'metadata.labels: Invalid value: "a b": name part {KEY_NAME_REGEX}',
        f'metadata.labels: Invalid value: "-x": {VALUE_REGEX}',
    ]


def test_annotation_key_error_shows_the_key_as_given() -> None:
    errors = _meta_errors({"name": "a", "namespace": "ns", "annotations": {"A B": "x"}})
    assert errors == [f'metadata.annotations: Invalid value: "A B": name part {KEY_NAME_REGEX}']


def test_annotations_may_not_exceed_256_kib() -> None:
    meta = {"name": "a", "namespace": "ns", "annotations": {"a": "x" * (256 * 1024)}}
    assert _meta_errors(meta) == ["metadata.annotations: Too long: may not be more than 262144 bytes"]


def test_annotations_of_exactly_256_kib_are_fine() -> None:
    meta = {"name": "a", "namespace": "ns", "annotations": {"a": "x" * (256 * 1024 - 1)}}
    assert _meta_errors(meta) == []


def test_finalizer_without_domain_must_be_standard() -> None:
    errors = _meta_errors({"name": "a", "namespace": "ns", "finalizers": ["example.com/x", "cleanup"]})
    assert errors == [
        'metadata.finalizers[1]: Invalid value: "cleanup": '
        "name is neither a standard finalizer name nor is it fully qualified"
    ]


def test_profile_finalizer_can_be_made_standard() -> None:
    meta = {"name": "a", "namespace": "ns", "finalizers": ["svc"]}
    assert _meta_errors(meta, standard_finalizers=GENERIC_FINALIZERS | {"svc"}) == []


def test_custom_resources_skip_the_standard_finalizer_rule() -> None:
    assert _meta_errors({"name": "a", "namespace": "ns", "finalizers": ["cleanup"]}, standard_finalizers=None) == []


def test_finalizer_must_be_a_qualified_name() -> None:
    errors = _meta_errors({"name": "a", "namespace": "ns", "finalizers": ["example.com/a b"]})
    assert errors == [f'metadata.finalizers: Invalid value: "example.com/a b": name part {KEY_NAME_REGEX}']


def test_orphan_and_foreground_deletion_exclude_each_other() -> None:
    errors = _meta_errors({"name": "a", "namespace": "ns", "finalizers": ["orphan", "foregroundDeletion"]})
    assert errors == [
        'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
        "finalizer orphan and foregroundDeletion cannot be both set"
    ]


def test_owner_reference_needs_its_identity() -> None:
    meta = {"name": "a", "namespace": "ns", "ownerReferences": [{"apiVersion": "apps/", "kind": "", "name": ""}]}
    assert _meta_errors(meta) == [
        'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    ]


def test_events_may_not_own_objects() -> None:
    ref = {"uid": "u1", "name": "e", "kind": "Event", "apiVersion": "v1", "blockOwnerDeletion": False}
    errors = _meta_errors({"name": "a", "namespace": "ns", "ownerReferences": [ref]})
    assert errors == [
        'metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u1",'
        '"blockOwnerDeletion":false}: /v1, Kind=Event is disallowed from being an owner'
    ]


def test_only_one_owner_may_be_the_controller() -> None:
    refs = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "1", "controller": True},
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "2", "controller": True},
    ]
    errors = _meta_errors({"name": "a", "namespace": "ns", "ownerReferences": refs})
    assert errors == [
        'metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r",'
        '"uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"2",'
        '"controller":true}]: Only one reference can have Controller set to true. Found "true" in references '
        "for ReplicaSet/r and Deployment/d"
    ]


def test_managed_fields_entries() -> None:
    entry = {"operation": "Patch", "fieldsType": "FieldsV2", "manager": "a\x07", "subresource": "s" * 257}
    errors = _meta_errors({"name": "a", "namespace": "ns", "managedFields": [entry]})
    assert errors == [
        'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
        'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
        'metadata.managedFields[0].manager: Invalid value: "a\\a": invalid character U+0007 (at position 1)',
        "metadata.managedFields[0].subresource: Too long: may not be more than 256 bytes",
    ]


def test_ill_typed_members_are_errors_not_crashes() -> None:
    errors = _meta_errors({"name": 5, "namespace": "ns", "labels": ["a"], "annotations": {"a": 1}})
    assert errors == [
        "metadata.name: Invalid value: 5: must be of type string",
        "metadata.name: Required value: name or generateName is required",
        'metadata.labels: Invalid value: ["a"]: must be of type object',
        "metadata.annotations[a]: Invalid value: 1: must be of type string",
    ]


def _update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    return [str(error) for error in validate_object_meta_update(new, old)]


OLD = {"name": "a", "namespace": "ns", "uid": "u1", "resourceVersion": "5", "generation": 2, "creationTimestamp": "t"}


def test_unchanged_identity_passes() -> None:
    assert _update_errors(dict(OLD), OLD) == []


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("name", "b", '"b"'),
        ("namespace", "other", '"other"'),
        ("uid", "u2", '"u2"'),
        ("creationTimestamp", None, "null"),
    ],
)
def test_identity_fields_are_immutable(key: str, value: Any, shown: str) -> None:
    assert _update_errors({**OLD, key: value}, OLD) == [f"metadata.{key}: Invalid value: {shown}: field is immutable"]


def test_generation_may_not_go_back() -> None:
    assert _update_errors({**OLD, "generation": 1}, OLD) == [
        "metadata.generation: Invalid value: 1: must not be decremented"
    ]


def test_update_needs_a_resource_version() -> None:
    new = {key: value for key, value in OLD.items() if key != "resourceVersion"}
    assert _update_errors(new, OLD) == ['metadata.resourceVersion: Invalid value: "": must be specified for an update']


def test_no_new_finalizers_while_deleting() -> None:
    old = {**OLD, "deletionTimestamp": "d", "finalizers": ["example.com/a"]}
    new = {**old, "finalizers": ["example.com/c", "example.com/a", "example.com/b"]}
    assert _update_errors(new, old) == [
        "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, "
        'found new finalizers []string{"example.com/b", "example.com/c"}'
    ]


def test_update_applies_the_standard_finalizer_rule() -> None:
    errors = _update_errors({**OLD, "finalizers": ["cleanup"]}, OLD)
    assert errors == [
        'metadata.finalizers[0]: Invalid value: "cleanup": '
        "name is neither a standard finalizer name nor is it fully qualified"
    ]
