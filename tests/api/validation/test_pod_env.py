"""Container environment validation (env `valueFrom`, `envFrom`): each invalid case gives upstream's causes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import C0, INVALID, NOT_SUPPORTED, POD, REQUIRED

ENV0 = f"{C0}.env[0]"
FROM = f"{ENV0}.valueFrom"


def env(**value_from: Any) -> list[dict[str, Any]]:
    return [{"name": "X", "valueFrom": value_from}]


VALID_ENV = [
    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
    {"name": "TIER", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['tier']"}}},
    {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
    {"name": "PAGES", "valueFrom": {"resourceFieldRef": {"resource": "limits.hugepages-2Mi"}}},
    {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "mode"}}},
    {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token", "optional": True}}},
]
VALID_ENV_FROM = [{"prefix": "APP_", "configMapRef": {"name": "settings"}}, {"secretRef": {"name": "creds"}}]

INVALID_ENV = [
    (
        "valueFrom without a source",
        f"{C0}.env",
        env(),
        [(FROM, INVALID, "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`")],
    ),
    (
        "valueFrom beside a value",
        f"{C0}.env",
        [{"name": "X", "value": "1", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        [(FROM, INVALID, 'Invalid value: "": may not be specified when `value` is not empty')],
    ),
    (
        "valueFrom with two sources",
        f"{C0}.env",
        env(fieldRef={"fieldPath": "metadata.name"}, secretKeyRef={"name": "creds", "key": "token"}),
        [(FROM, INVALID, "may not have more than one field specified at a time")],
    ),
    (
        "fieldRef to a field env vars cannot read",
        f"{C0}.env",
        env(fieldRef={"fieldPath": "status.phase"}),
        [(f"{FROM}.fieldRef.fieldPath", NOT_SUPPORTED, 'Unsupported value: "status.phase": supported values: ')],
    ),
    (
        "fieldRef to an unknown field",
        f"{C0}.env",
        env(fieldRef={"fieldPath": "spec.nothing"}),
        [(f"{FROM}.fieldRef.fieldPath", INVALID, "field label not supported: spec.nothing")],
    ),
    (
        "fieldRef of another API version",
        f"{C0}.env",
        env(fieldRef={"apiVersion": "v2", "fieldPath": "metadata.name"}),
        [(f"{FROM}.fieldRef.fieldPath", INVALID, "error converting fieldPath: unsupported pod version: v2")],
    ),
    (
        "fieldRef subscript that is not a label key",
        f"{C0}.env",
        env(fieldRef={"fieldPath": "metadata.labels['bad key']"}),
        [(f"{FROM}.fieldRef", INVALID, "name part must consist of alphanumeric characters")],
    ),
    (
        "resourceFieldRef without a resource",
        f"{C0}.env",
        env(resourceFieldRef={"resource": ""}),
        [(f"{FROM}.resourceFieldRef.resource", REQUIRED, "Required value")],
    ),
    (
        "resourceFieldRef to an unknown resource",
        f"{C0}.env",
        env(resourceFieldRef={"resource": "limits.gpu"}),
        [(f"{FROM}.resourceFieldRef.resource", NOT_SUPPORTED, '"limits.cpu", "limits.ephemeral-storage"')],
    ),
    (
        "cpu divisor in mebibytes",
        f"{C0}.env",
        env(resourceFieldRef={"resource": "limits.cpu", "divisor": "1Mi"}),
        [
            (
                f"{FROM}.resourceFieldRef.divisor",
                INVALID,
                'Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are supported with the cpu resource',
            )
        ],
    ),
    (
        "configMapKeyRef without a key",
        f"{C0}.env",
        env(configMapKeyRef={"name": "settings"}),
        [(f"{FROM}.configMapKeyRef.key", REQUIRED, "Required value")],
    ),
    (
        "secretKeyRef with a bad name and key",
        f"{C0}.env",
        env(secretKeyRef={"name": "Creds", "key": "a/b"}),
        [
            (f"{FROM}.secretKeyRef.name", INVALID, "a lowercase RFC 1123 subdomain must consist of"),
            (f"{FROM}.secretKeyRef.key", INVALID, "a valid config key must consist of alphanumeric characters"),
        ],
    ),
    (
        "envFrom without a source",
        f"{C0}.envFrom",
        [{"prefix": "APP_"}],
        [(f"{C0}.envFrom", INVALID, "must specify one of: `configMapRef` or `secretRef`")],
    ),
    (
        "envFrom with two sources",
        f"{C0}.envFrom",
        [{"configMapRef": {"name": "settings"}, "secretRef": {"name": "creds"}}],
        [(f"{C0}.envFrom", INVALID, "may not have more than one field specified at a time")],
    ),
    (
        "envFrom prefix with an equals sign",
        f"{C0}.envFrom",
        [{"prefix": "A=", "secretRef": {"name": "creds"}}],
        [(f"{C0}.envFrom[0].prefix", INVALID, "printable ASCII characters other than '='")],
    ),
    (
        "envFrom reference without a name",
        f"{C0}.envFrom",
        [{"configMapRef": {}}],
        [(f"{C0}.envFrom[0].configMapRef.name", REQUIRED, "Required value")],
    ),
]


def test_valid_environment_passes() -> None:
    pod = with_path(POD, "spec.containers.0.env", VALID_ENV)
    pod = with_path(pod, "spec.containers.0.envFrom", VALID_ENV_FROM)
    assert causes("", "Pod", pod) == []


@pytest.mark.parametrize(("path", "value", "expected"), [c[1:] for c in INVALID_ENV], ids=[c[0] for c in INVALID_ENV])
def test_invalid_environment(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes("", "Pod", with_path(POD, path.replace("[0]", ".0"), value)), expected)


def test_init_container_environment_is_validated() -> None:
    pod = with_path(POD, "spec.initContainers.0.env", env())
    expected = [("spec.initContainers[0].env[0].valueFrom", INVALID, "must specify one of: `fieldRef`")]
    assert_causes(causes("", "Pod", pod), expected)
