"""EndpointSlice, Event (both versions), the webhook configurations and ControllerRevision: valid fixtures
pass, and each invalid case yields upstream's (field, reason, detail)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, NOT_SUPPORTED = "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported"
DUPLICATE, TOO_MANY = "FieldValueDuplicate", "FieldValueTooMany"
DISCOVERY, EVENTS, ADMISSION = "discovery.k8s.io", "events.k8s.io", "admissionregistration.k8s.io"
META = {"name": "x", "namespace": "default"}

SLICE = {
    "metadata": META,
    "addressType": "IPv4",
    "endpoints": [{"addresses": ["10.1.2.3"], "hostname": "web-0"}],
    "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
}
CORE_EVENT = {
    "metadata": META,
    "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
    "reason": "Started",
    "message": "started",
    "type": "Normal",
    "source": {"component": "kubelet"},
    "count": 1,
}
EVENT = {
    "metadata": META,
    "eventTime": "2026-01-01T00:00:00.000000Z",
    "reportingController": "example.com/test",
    "reportingInstance": "test-1",
    "action": "Start",
    "reason": "Started",
    "type": "Normal",
    "regarding": {"kind": "Pod", "name": "p", "namespace": "default"},
}
HOOK = {
    "name": "check.example.com",
    "clientConfig": {"service": {"name": "hooks", "namespace": "default", "path": "/check", "port": 443}},
    "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
    "sideEffects": "None",
    "admissionReviewVersions": ["v1"],
    "failurePolicy": "Fail",
    "timeoutSeconds": 10,
}
VALIDATING = {"metadata": {"name": "x"}, "webhooks": [HOOK]}
MUTATING = {"metadata": {"name": "x"}, "webhooks": [{**HOOK, "reinvocationPolicy": "IfNeeded"}]}
VWC, MWC = "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"
H0 = "webhooks[0]"

VALID = [
    (DISCOVERY, "EndpointSlice", SLICE),
    (DISCOVERY, "EndpointSlice", {**SLICE, "addressType": "FQDN", "endpoints": [{"addresses": ["db.example.com"]}]}),
    ("", "Event", CORE_EVENT),
    (EVENTS, "Event", EVENT),
    (ADMISSION, VWC, VALIDATING),
    (ADMISSION, MWC, MUTATING),
]


@pytest.mark.parametrize(("group", "kind", "obj"), VALID, ids=[f"{case[1]}-{i}" for i, case in enumerate(VALID)])
def test_valid_object_passes(group: str, kind: str, obj: dict[str, Any]) -> None:
    assert causes(group, kind, obj) == []


INVALID_OBJECTS = [
    (
        "slice without an address type",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "addressType", ...),
        [("addressType", REQUIRED, "Required value")],
    ),
    (
        "slice with an unknown address type",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "addressType", "IP"),
        [("addressType", NOT_SUPPORTED, 'supported values: "FQDN", "IPv4", "IPv6"')],
    ),
    (
        "slice endpoint without addresses",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "endpoints.0.addresses", []),
        [("endpoints[0].addresses", REQUIRED, "must contain at least 1 address")],
    ),
    (
        "IPv6 address in an IPv4 slice",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "endpoints.0.addresses.0", "2001:db8::1"),
        [("endpoints[0].addresses[0]", INVALID, "must be a valid IPv4 address")],
    ),
    (
        "loopback address in a slice",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "endpoints.0.addresses.0", "127.0.0.1"),
        [("endpoints[0].addresses[0]", INVALID, "may not be in the loopback range")],
    ),
    (
        "single-label FQDN",
        DISCOVERY,
        "EndpointSlice",
        {**SLICE, "addressType": "FQDN", "endpoints": [{"addresses": ["db"]}]},
        [("endpoints[0].addresses[0]", INVALID, "should be a domain with at least two segments separated by dots")],
    ),
    (
        "more than 1000 endpoints",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "endpoints", [{"addresses": ["10.1.2.3"]}] * 1001),
        [("endpoints", TOO_MANY, "must have at most 1000 items")],
    ),
    (
        "slice port names repeat",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "ports.1", {"name": "http", "port": 81, "protocol": "TCP"}),
        [("ports[1].name", DUPLICATE, 'Duplicate value: "http"')],
    ),
    (
        "slice port with an unknown protocol",
        DISCOVERY,
        "EndpointSlice",
        with_path(SLICE, "ports.0.protocol", "HTTP"),
        [("ports[0].protocol", NOT_SUPPORTED, 'supported values: "SCTP", "TCP", "UDP"')],
    ),
    (
        "core event in another namespace than its object",
        "",
        "Event",
        with_path(CORE_EVENT, "involvedObject.namespace", "other"),
        [("involvedObject.namespace", INVALID, 'Invalid value: "other": does not match event.namespace')],
    ),
    (
        "core event with an event time needs the reporting members",
        "",
        "Event",
        with_path(CORE_EVENT, "eventTime", "2026-01-01T00:00:00.000000Z"),
        [
            ("reportingController", REQUIRED, "Required value"),
            ("reportingController", INVALID, "name part must be non-empty"),
            ("reportingController", INVALID, "name part must consist of alphanumeric characters"),
            ("reportingInstance", REQUIRED, "Required value"),
            ("action", REQUIRED, "Required value"),
        ],
    ),
    (
        "event without an event time",
        EVENTS,
        "Event",
        with_path(EVENT, "eventTime", ...),
        [("eventTime", REQUIRED, "Required value")],
    ),
    (
        "event reporting controller that is not a qualified name",
        EVENTS,
        "Event",
        with_path(EVENT, "reportingController", "a/b/c"),
        [("reportingController", INVALID, "a valid label key must consist of alphanumeric characters")],
    ),
    (
        "event of an unknown type",
        EVENTS,
        "Event",
        with_path(EVENT, "type", "Info"),
        [("type", INVALID, 'Invalid value: "": has invalid value: Info')],
    ),
    (
        "event with a deprecated count",
        EVENTS,
        "Event",
        with_path(EVENT, "deprecatedCount", 3),
        [("count", INVALID, "needs to be unset")],
    ),
    (
        "event series of one",
        EVENTS,
        "Event",
        with_path(EVENT, "series", {"count": 1, "lastObservedTime": "2026-01-01T00:00:00.000000Z"}),
        [("series.count", INVALID, "should be at least 2")],
    ),
    (
        "event note over 1024 characters",
        EVENTS,
        "Event",
        with_path(EVENT, "note", "x" * 1025),
        [("message", INVALID, "can have at most 1024 characters")],
    ),
    (
        "webhook name with two labels",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.name", "example.com"),
        [(f"{H0}.name", INVALID, "should be a domain with at least three segments separated by dots")],
    ),
    (
        "webhook names repeat",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.1", HOOK),
        [("webhooks[1].name", DUPLICATE, 'Duplicate value: "check.example.com"')],
    ),
    (
        "webhook with both url and service",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.clientConfig.url", "https://example.com/hook"),
        [(f"{H0}.clientConfig", REQUIRED, "exactly one of url or service is required")],
    ),
    (
        "webhook url over http",
        ADMISSION,
        MWC,
        with_path(MUTATING, "webhooks.0.clientConfig", {"url": "http://example.com/hook"}),
        [(f"{H0}.clientConfig.url", INVALID, "'https' is the only allowed URL scheme; desired format")],
    ),
    (
        "webhook service without a namespace",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.clientConfig.service.namespace", ...),
        [(f"{H0}.clientConfig.service.namespace", REQUIRED, "service namespace is required")],
    ),
    (
        "webhook rule with a wildcard and another operation",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.rules.0.operations", ["*", "CREATE"]),
        [(f"{H0}.rules[0].operations", INVALID, "if '*' is present, must not specify other operations")],
    ),
    (
        "webhook rule without resources",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.rules.0.resources", []),
        [(f"{H0}.rules[0].resources", REQUIRED, "Required value")],
    ),
    (
        "webhook without side effects",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.sideEffects", ...),
        [(f"{H0}.sideEffects", REQUIRED, "must specify one of None, NoneOnDryRun")],
    ),
    (
        "webhook with side effects",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.sideEffects", "Some"),
        [(f"{H0}.sideEffects", NOT_SUPPORTED, 'supported values: "None", "NoneOnDryRun"')],
    ),
    (
        "webhook with an unknown failure policy",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.failurePolicy", "Retry"),
        [(f"{H0}.failurePolicy", NOT_SUPPORTED, 'supported values: "Fail", "Ignore"')],
    ),
    (
        "webhook with an unknown match policy",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.matchPolicy", "Loose"),
        [(f"{H0}.matchPolicy", NOT_SUPPORTED, 'supported values: "Equivalent", "Exact"')],
    ),
    (
        "webhook timeout over 30 seconds",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.timeoutSeconds", 31),
        [(f"{H0}.timeoutSeconds", INVALID, "the timeout value must be between 1 and 30 seconds")],
    ),
    (
        "webhook with only unknown review versions",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.admissionReviewVersions", ["v2"]),
        [(f"{H0}.admissionReviewVersions", INVALID, "must include at least one of v1, v1beta1")],
    ),
    (
        "webhook with a repeated review version",
        ADMISSION,
        VWC,
        with_path(VALIDATING, "webhooks.0.admissionReviewVersions", ["v1", "v1"]),
        [(f"{H0}.admissionReviewVersions[1]", INVALID, "duplicate version")],
    ),
    (
        "mutating webhook with an unknown reinvocation policy",
        ADMISSION,
        MWC,
        with_path(MUTATING, "webhooks.0.reinvocationPolicy", "Always"),
        [(f"{H0}.reinvocationPolicy", NOT_SUPPORTED, 'supported values: "IfNeeded", "Never"')],
    ),
]


@pytest.mark.parametrize(
    ("group", "kind", "obj", "expected"),
    [case[1:] for case in INVALID_OBJECTS],
    ids=[case[0] for case in INVALID_OBJECTS],
)
def test_invalid_object(group: str, kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes(group, kind, obj), expected)


def test_slice_address_type_cannot_change() -> None:
    changed = {**SLICE, "addressType": "IPv6", "endpoints": [{"addresses": ["2001:db8::1"]}]}
    expected = [("addressType", INVALID, 'Invalid value: "IPv6": field is immutable')]
    assert_causes(causes(DISCOVERY, "EndpointSlice", changed, old=SLICE), expected)


def test_event_reason_cannot_change() -> None:
    changed = with_path(EVENT, "reason", "Stopped")
    expected = [("reason", INVALID, 'Invalid value: "Stopped": field is immutable')]
    assert_causes(causes(EVENTS, "Event", changed, old=EVENT), expected)


def test_controller_revision_needs_data() -> None:
    revision = {"metadata": META, "revision": 1}
    assert_causes(causes("apps", "ControllerRevision", revision), [("data", REQUIRED, "data is mandatory")])


def test_controller_revision_data_may_be_empty() -> None:
    assert causes("apps", "ControllerRevision", {"metadata": META, "revision": 1, "data": {}}) == []
