"""ConfigMap, Secret, Service, Namespace, LimitRange and ResourceQuota validation."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, FORBIDDEN = "FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden"
NOT_SUPPORTED, DUPLICATE, TOO_LONG = "FieldValueNotSupported", "FieldValueDuplicate", "FieldValueTooLong"
META = {"name": "x", "namespace": "default"}

CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": META, "data": {"app.properties": "a=b"}}
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": META, "type": "Opaque", "data": {"token": "c2VjcmV0"}}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": META,
    "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
}
LIMIT_RANGE = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": META,
    "spec": {"limits": [{"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "2"}}]},
}
QUOTA = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": META,
    "spec": {"hard": {"pods": "10", "requests.cpu": "4"}},
}
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}, "spec": {"finalizers": []}}

VALID = [
    ("ConfigMap", CONFIG_MAP),
    ("Secret", SECRET),
    ("Service", SERVICE),
    ("LimitRange", LIMIT_RANGE),
    ("ResourceQuota", QUOTA),
    ("Namespace", NAMESPACE),
]


@pytest.mark.parametrize(("kind", "obj"), VALID, ids=[case[0] for case in VALID])
def test_valid_object_passes(kind: str, obj: dict[str, Any]) -> None:
    assert causes("", kind, obj) == []


INVALID_OBJECTS = [
    (
        "config map key with a space",
        "ConfigMap",
        with_path(CONFIG_MAP, "data", {"a b": "c"}),
        [("data[a b]", INVALID, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'")],
    ),
    (
        "config map key starting with two dots",
        "ConfigMap",
        with_path(CONFIG_MAP, "data", {"..secret": "c"}),
        [("data[..secret]", INVALID, "must not start with '..'")],
    ),
    (
        "config map key in data and binaryData",
        "ConfigMap",
        with_path(CONFIG_MAP, "binaryData", {"app.properties": "YQ=="}),
        [("data[app.properties]", INVALID, "duplicate of key present in binaryData")],
    ),
    (
        "config map over 1 MiB",
        "ConfigMap",
        with_path(CONFIG_MAP, "data", {"big": "x" * (1024 * 1024 + 1)}),
        [("", TOO_LONG, "Too long: may not be more than 1048576 bytes")],
    ),
    (
        "secret over 1 MiB",
        "Secret",
        with_path(SECRET, "data", {"big": base64.b64encode(b"x" * (1024 * 1024 + 1)).decode()}),
        [("data", TOO_LONG, "may not be more than 1048576 bytes")],
    ),
    (
        "TLS secret without its keys",
        "Secret",
        with_path(SECRET, "type", "kubernetes.io/tls"),
        [("data[tls.crt]", REQUIRED, "Required value"), ("data[tls.key]", REQUIRED, "Required value")],
    ),
    (
        "basic-auth secret without username and password",
        "Secret",
        with_path(SECRET, "type", "kubernetes.io/basic-auth"),
        [("data[username]", REQUIRED, "Required value"), ("data[password]", REQUIRED, "Required value")],
    ),
    (
        "docker config secret without its key",
        "Secret",
        with_path(SECRET, "type", "kubernetes.io/dockerconfigjson"),
        [("data[.dockerconfigjson]", REQUIRED, "Required value")],
    ),
    (
        "service without ports",
        "Service",
        with_path(SERVICE, "spec.ports", []),
        [("spec.ports", REQUIRED, "Required value")],
    ),
    (
        "service port out of range",
        "Service",
        with_path(SERVICE, "spec.ports.0.port", 0),
        [("spec.ports[0].port", INVALID, "Invalid value: 0: must be between 1 and 65535, inclusive")],
    ),
    (
        "second service port without a name",
        "Service",
        with_path(SERVICE, "spec.ports.1", {"port": 443}),
        [("spec.ports[1].name", REQUIRED, "Required value")],
    ),
    (
        "two service ports with one name",
        "Service",
        with_path(SERVICE, "spec.ports.1", {"name": "http", "port": 443}),
        [("spec.ports[1].name", DUPLICATE, 'Duplicate value: "http"')],
    ),
    (
        "two service ports on one port",
        "Service",
        with_path(SERVICE, "spec.ports.1", {"name": "alt", "port": 80}),
        [("spec.ports[1]", DUPLICATE, '"Protocol":"TCP","AppProtocol":null,"Port":80')],
    ),
    (
        "unknown service type",
        "Service",
        with_path(SERVICE, "spec.type", "Magic"),
        [("spec.type", NOT_SUPPORTED, 'supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"')],
    ),
    (
        "node port on a ClusterIP service",
        "Service",
        with_path(SERVICE, "spec.ports.0.nodePort", 30080),
        [("spec.ports[0].nodePort", FORBIDDEN, "may not be used when `type` is 'ClusterIP'")],
    ),
    (
        "external IP on loopback",
        "Service",
        with_path(SERVICE, "spec.externalIPs", ["127.0.0.1"]),
        [("spec.externalIPs[0]", INVALID, "may not be in the loopback range (127.0.0.0/8, ::1/128)")],
    ),
    (
        "ExternalName service without a name",
        "Service",
        {**SERVICE, "spec": {"type": "ExternalName"}},
        [("spec.externalName", REQUIRED, "Required value")],
    ),
    (
        "service selector with a bad label value",
        "Service",
        with_path(SERVICE, "spec.selector.app", "-web"),
        [("spec.selector", INVALID, "a valid label must be an empty string or consist of alphanumeric characters")],
    ),
    (
        "limit range with min above max",
        "LimitRange",
        with_path(LIMIT_RANGE, "spec.limits.0.min.cpu", "3"),
        [
            ("spec.limits[0].min[cpu]", INVALID, 'Invalid value: "3": min value 3 is greater than max value 2'),
            ("spec.limits[0].defaultRequest[cpu]", INVALID, "min value 3 is greater than default request value 2"),
            ("spec.limits[0].default[cpu]", INVALID, "min value 3 is greater than default value 2"),
        ],
    ),
    (
        "limit range with an unknown type",
        "LimitRange",
        with_path(LIMIT_RANGE, "spec.limits.0.type", "Node"),
        [("spec.limits[0].type", INVALID, "must be a standard limit type or fully qualified")],
    ),
    (
        "quota with a negative limit",
        "ResourceQuota",
        with_path(QUOTA, "spec.hard.pods", "-1"),
        [("spec.hard[pods]", INVALID, 'Invalid value: "-1": must be greater than or equal to 0')],
    ),
    (
        "quota with a fractional pod count",
        "ResourceQuota",
        with_path(QUOTA, "spec.hard.pods", "1500m"),
        [("spec.hard[pods]", INVALID, "must be an integer")],
    ),
    (
        "quota with conflicting scopes",
        "ResourceQuota",
        with_path(QUOTA, "spec.scopes", ["Terminating", "NotTerminating"]),
        [("spec.scopes", INVALID, "conflicting scopes")],
    ),
    (
        "namespace finalizer without a domain",
        "Namespace",
        with_path(NAMESPACE, "spec.finalizers", ["cleanup"]),
        [("spec.finalizers", INVALID, "name is neither a standard finalizer name nor is it fully qualified")],
    ),
]


@pytest.mark.parametrize(
    ("kind", "obj", "expected"), [c[1:] for c in INVALID_OBJECTS], ids=[c[0] for c in INVALID_OBJECTS]
)
def test_invalid_object(kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes("", kind, obj), expected)


IMMUTABLE = {"immutable": True}


@pytest.mark.parametrize(("kind", "obj", "member"), [("ConfigMap", CONFIG_MAP, "data"), ("Secret", SECRET, "data")])
def test_immutable_freezes_data(kind: str, obj: dict[str, Any], member: str) -> None:
    old = {**obj, **IMMUTABLE}
    changed = {**old, member: {"other": "b3RoZXI="}}
    expected = [(member, FORBIDDEN, "field is immutable when `immutable` is set")]
    assert_causes(causes("", kind, changed, old=old), expected)


def test_immutable_cannot_be_unset() -> None:
    old = {**CONFIG_MAP, **IMMUTABLE}
    expected = [("immutable", FORBIDDEN, "field is immutable when `immutable` is set")]
    assert_causes(causes("", "ConfigMap", {**CONFIG_MAP, "immutable": False}, old=old), expected)


def test_mutable_config_map_data_may_change() -> None:
    assert causes("", "ConfigMap", with_path(CONFIG_MAP, "data.more", "x"), old=CONFIG_MAP) == []


def test_secret_type_is_immutable() -> None:
    changed = {**SECRET, "type": "example.com/custom"}
    assert_causes(causes("", "Secret", changed, old=SECRET), [("type", INVALID, "field is immutable")])


def test_service_cluster_ip_is_immutable() -> None:
    old = with_path(with_path(SERVICE, "spec.clusterIP", "10.0.0.10"), "spec.clusterIPs", ["10.0.0.10"])
    new = with_path(with_path(old, "spec.clusterIP", "10.0.0.11"), "spec.clusterIPs", ["10.0.0.11"])
    expected = [("spec.clusterIPs[0]", INVALID, 'Invalid value: ["10.0.0.11"]: may not change once set')]
    assert_causes(causes("", "Service", new, old=old), expected)


def test_quota_scopes_are_immutable() -> None:
    changed = with_path(QUOTA, "spec.scopes", ["NotBestEffort"])
    assert_causes(causes("", "ResourceQuota", changed, old=QUOTA), [("spec.scopes", INVALID, "field is immutable")])
