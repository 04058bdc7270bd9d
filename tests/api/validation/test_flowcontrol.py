"""FlowSchema and PriorityLevelConfiguration: valid fixtures pass, and each invalid case yields upstream's
(field, reason, detail)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, NOT_SUPPORTED, FORBIDDEN = (
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueNotSupported",
    "FieldValueForbidden",
)
GROUP = "flowcontrol.apiserver.k8s.io"
FS, PL = "FlowSchema", "PriorityLevelConfiguration"

SCHEMA = {
    "metadata": {"name": "workers"},
    "spec": {
        "priorityLevelConfiguration": {"name": "workload"},
        "matchingPrecedence": 500,
        "distinguisherMethod": {"type": "ByUser"},
        "rules": [
            {
                "subjects": [
                    {"kind": "ServiceAccount", "serviceAccount": {"name": "*", "namespace": "jobs"}},
                    {"kind": "User", "user": {"name": "alice"}},
                ],
                "resourceRules": [
                    {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "namespaces": ["*"]}
                ],
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/metrics/*"]}],
            }
        ],
    },
}
LEVEL = {
    "metadata": {"name": "workload"},
    "spec": {
        "type": "Limited",
        "limited": {
            "nominalConcurrencyShares": 30,
            "lendablePercent": 50,
            "limitResponse": {"type": "Queue", "queuing": {"queues": 64, "handSize": 6, "queueLengthLimit": 50}},
        },
    },
}
R0 = "spec.rules[0]"
Q = "spec.limited.limitResponse.queuing"


@pytest.mark.parametrize(("kind", "obj"), [(FS, SCHEMA), (PL, LEVEL)])
def test_valid_object_passes(kind: str, obj: dict[str, Any]) -> None:
    assert causes(GROUP, kind, obj) == []


INVALID_OBJECTS = [
    (
        "negative schema precedence",
        FS,
        with_path(SCHEMA, "spec.matchingPrecedence", -5),
        [("spec.matchingPrecedence", INVALID, "Invalid value: -5: must be a positive value")],
    ),
    (
        "schema precedence over 10000",
        FS,
        with_path(SCHEMA, "spec.matchingPrecedence", 10001),
        [("spec.matchingPrecedence", INVALID, "must not be greater than 10000")],
    ),
    (
        "precedence 1 outside the exempt schema",
        FS,
        with_path(SCHEMA, "spec.matchingPrecedence", 1),
        [("spec.matchingPrecedence", INVALID, "only the schema named 'exempt' may have matchingPrecedence 1")],
    ),
    (
        "schema without a priority level",
        FS,
        with_path(SCHEMA, "spec.priorityLevelConfiguration.name", ...),
        [("spec.priorityLevelConfiguration.name", REQUIRED, "must reference a priority level")],
    ),
    (
        "unknown distinguisher",
        FS,
        with_path(SCHEMA, "spec.distinguisherMethod.type", "ByGroup"),
        [("spec.distinguisherMethod.type", NOT_SUPPORTED, 'supported values: "ByNamespace", "ByUser"')],
    ),
    (
        "rule without subjects",
        FS,
        with_path(SCHEMA, "spec.rules.0.subjects", []),
        [(f"{R0}.subjects", REQUIRED, "subjects must contain at least one value")],
    ),
    (
        "service account subject without a namespace",
        FS,
        with_path(SCHEMA, "spec.rules.0.subjects.0.serviceAccount.namespace", ...),
        [(f"{R0}.subjects[0].serviceAccount.namespace", REQUIRED, "must specify namespace for service account")],
    ),
    (
        "user subject carrying a group",
        FS,
        with_path(SCHEMA, "spec.rules.0.subjects.1.group", {"name": "g"}),
        [(f"{R0}.subjects[1].group", FORBIDDEN, "group is forbidden when subject kind is not 'Group'")],
    ),
    (
        "subject of an unknown kind",
        FS,
        with_path(SCHEMA, "spec.rules.0.subjects.1.kind", "Robot"),
        [(f"{R0}.subjects[1].kind", NOT_SUPPORTED, 'supported values: "Group", "ServiceAccount", "User"')],
    ),
    (
        "rule with neither resource nor non-resource rules",
        FS,
        with_path(with_path(SCHEMA, "spec.rules.0.resourceRules", ...), "spec.rules.0.nonResourceRules", ...),
        [(R0, REQUIRED, "at least one of resourceRules and nonResourceRules has to be non-empty")],
    ),
    (
        "unknown verb",
        FS,
        with_path(SCHEMA, "spec.rules.0.resourceRules.0.verbs", ["get", "escalate"]),
        [(f"{R0}.resourceRules[0].verbs", NOT_SUPPORTED, 'supported values: "create", "delete"')],
    ),
    (
        "namespaced resource rule without namespaces",
        FS,
        with_path(SCHEMA, "spec.rules.0.resourceRules.0.namespaces", []),
        [(f"{R0}.resourceRules[0].namespaces", REQUIRED, "resource rules that are not cluster scoped must supply")],
    ),
    (
        "non-resource URL with an inner wildcard",
        FS,
        with_path(SCHEMA, "spec.rules.0.nonResourceRules.0.nonResourceURLs.1", "/metrics/*/x"),
        [(f"{R0}.nonResourceRules[0].nonResourceURLs[1]", INVALID, "wildcard can only do suffix matching")],
    ),
    (
        "level of an unknown type",
        PL,
        with_path(LEVEL, "spec.type", "Unlimited"),
        [("spec.type", NOT_SUPPORTED, 'supported values: "Exempt", "Limited"')],
    ),
    (
        "exempt level under another name",
        PL,
        {"metadata": {"name": "workload"}, "spec": {"type": "Exempt"}},
        [("spec.type", INVALID, "type must be 'Exempt' if and only if name is 'exempt'")],
    ),
    (
        "limited level without its limits",
        PL,
        with_path(LEVEL, "spec.limited", ...),
        [("spec.limited", REQUIRED, "must not be empty when type is Limited")],
    ),
    (
        "queued response without queuing",
        PL,
        with_path(LEVEL, "spec.limited.limitResponse.queuing", ...),
        [
            (
                "spec.limited.limitResponse.queuing",
                REQUIRED,
                "must not be empty if limited.limitResponse.type is Limited",
            )
        ],
    ),
    (
        "rejecting response with queuing",
        PL,
        with_path(LEVEL, "spec.limited.limitResponse.type", "Reject"),
        [("spec.limited.limitResponse.queuing", FORBIDDEN, "must be nil if limited.limitResponse.type is not Limited")],
    ),
    (
        "hand larger than the deck",
        PL,
        with_path(LEVEL, "spec.limited.limitResponse.queuing.handSize", 65),
        [(f"{Q}.handSize", INVALID, "should not be greater than queues (64)")],
    ),
    (
        "hand needing more than 60 bits of entropy",
        PL,
        with_path(with_path(LEVEL, f"{Q[len('spec.') - 5 :]}.queues", 10_000_000), f"{Q}.handSize", 20),
        [
            (
                f"{Q}.handSize",
                INVALID,
                "required entropy bits of deckSize 10000000 and handSize 20 should not be greater than 60",
            )
        ],
    ),
    (
        "lendable percent over 100",
        PL,
        with_path(LEVEL, "spec.limited.lendablePercent", 101),
        [("spec.limited.lendablePercent", INVALID, "must be between 0 and 100, inclusive")],
    ),
    (
        "negative concurrency shares",
        PL,
        with_path(LEVEL, "spec.limited.nominalConcurrencyShares", -1),
        [("spec.limited.nominalConcurrencyShares", INVALID, "must be a non-negative integer")],
    ),
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), [case[1:] for case in INVALID_OBJECTS], ids=[case[0] for case in INVALID_OBJECTS]
)
def test_invalid_object(kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(GROUP, kind, obj), expected)
