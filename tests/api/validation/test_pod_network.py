"""Pod DNS config, host aliases and OS validation: each invalid case gives upstream's causes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import C0, FORBIDDEN, INVALID, NOT_SUPPORTED, POD, REQUIRED

DNS = "spec.dnsConfig"
ALIAS = "spec.hostAliases"

VALID_NETWORK = {
    "dnsPolicy": "None",
    "dnsConfig": {
        "nameservers": ["10.0.0.10", "2001:db8::53"],
        "searches": ["svc.cluster.local", "_srv.example.com.", "."],
        "options": [{"name": "ndots", "value": "2"}],
    },
    "hostAliases": [{"ip": "10.1.2.3", "hostnames": ["db.internal", "cache"]}],
    "os": {"name": "linux"},
}

INVALID_NETWORK = [
    (
        "DNS policy None without a config",
        "spec.dnsPolicy",
        "None",
        [(DNS, REQUIRED, "must provide `dnsConfig` when `dnsPolicy` is None")],
    ),
    (
        "four nameservers",
        DNS,
        {"nameservers": ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]},
        [(f"{DNS}.nameservers", INVALID, "must not have more than 3 nameservers")],
    ),
    (
        "nameserver that is not an IP",
        DNS,
        {"nameservers": ["dns.example.com"]},
        [(f"{DNS}.nameservers[0]", INVALID, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")],
    ),
    (
        "33 search paths",
        DNS,
        {"searches": [f"d{index}.example.com" for index in range(33)]},
        [(f"{DNS}.searches", INVALID, "must not have more than 32 search paths")],
    ),
    (
        "search list longer than 2048 characters",
        DNS,
        {"searches": ["a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 61] * 9},
        [(f"{DNS}.searches", INVALID, "must not have more than 2048 characters (including spaces) in the search list")],
    ),
    (
        "search domain with capitals",
        DNS,
        {"searches": ["Example.com"]},
        [(f"{DNS}.searches[0]", INVALID, "alphanumeric characters, '_', '-' or '.'")],
    ),
    (
        "DNS option without a name",
        DNS,
        {"options": [{"value": "2"}]},
        [(f"{DNS}.options[0]", REQUIRED, "Required value: must not be empty")],
    ),
    (
        "host alias without an IP",
        ALIAS,
        [{"hostnames": ["db"]}],
        [(f"{ALIAS}[0].ip", INVALID, "must be a valid IP address")],
    ),
    (
        "host alias name with an underscore",
        ALIAS,
        [{"ip": "10.1.2.3", "hostnames": ["my_db"]}],
        [(f"{ALIAS}[0].hostnames[0]", INVALID, "a lowercase RFC 1123 subdomain must consist of")],
    ),
    ("OS without a name", "spec.os", {}, [("spec.os.name", REQUIRED, "Required value: cannot be empty")]),
    (
        "unknown OS",
        "spec.os",
        {"name": "plan9"},
        [("spec.os", NOT_SUPPORTED, 'Unsupported value: "plan9": supported values: "linux", "windows"')],
    ),
]


def test_valid_network_settings_pass() -> None:
    pod = POD
    for key, value in VALID_NETWORK.items():
        pod = with_path(pod, f"spec.{key}", value)
    assert causes("", "Pod", pod) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"), [c[1:] for c in INVALID_NETWORK], ids=[c[0] for c in INVALID_NETWORK]
)
def test_invalid_network_setting(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes("", "Pod", with_path(POD, path, value)), expected)


def test_windows_pod_refuses_linux_settings() -> None:
    pod = with_path(POD, "spec.os", {"name": "windows"})
    pod = with_path(pod, "spec.hostPID", True)
    pod = with_path(pod, "spec.containers.0.securityContext", {"runAsUser": 1000})
    expected = [
        ("spec.hostPID", FORBIDDEN, "cannot be set for a windows pod"),
        (f"{C0}.securityContext.runAsUser", FORBIDDEN, "cannot be set for a windows pod"),
    ]
    assert_causes(causes("", "Pod", pod), expected)


def test_linux_pod_refuses_windows_options() -> None:
    pod = with_path(POD, "spec.os", {"name": "linux"})
    pod = with_path(pod, "spec.containers.0.securityContext", {"windowsOptions": {"runAsUserName": "app"}})
    expected = [(f"{C0}.securityContext.windowsOptions", FORBIDDEN, "windows options cannot be set for a linux pod")]
    assert_causes(causes("", "Pod", pod), expected)
