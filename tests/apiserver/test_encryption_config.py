"""The EncryptionConfiguration file: upstream's validation errors, in one line that stops the server."""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import pytest

from svc.api.brand import KUBERNETES, SVC
from svc.storage.encryption.config import parse_encryption_config

KEY = base64.b64encode(bytes(32)).decode()


def _file(resources: str) -> bytes:
    return f"apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n{resources}".encode()


def _error(resources: str) -> str:
    with pytest.raises(ValueError, match="error while parsing encryption provider configuration file") as raised:
        parse_encryption_config(_file(resources), KUBERNETES, "enc.yaml")
    return str(raised.value)


def test_a_good_file_lists_providers_in_order() -> None:
    (config,) = parse_encryption_config(
        _file(
            f"- resources: [secrets]\n  providers:\n  - aescbc: {{keys: [{{name: k, secret: {KEY}}}]}}\n"
            "  - identity: {}\n"
        ),
        KUBERNETES,
    )
    assert config.resources == ("secrets",)
    assert [provider.type for provider in config.providers] == ["aescbc", "identity"]
    assert config.providers[0].keys[0].secret == bytes(32)


def test_the_group_follows_the_profile() -> None:
    with pytest.raises(
        ValueError,
        match=re.escape('no kind "EncryptionConfiguration" is registered for version "apiserver.config.k8s.io/v1"'),
    ):
        parse_encryption_config(_file("- resources: [secrets]\n  providers: [{identity: {}}]\n"), SVC)


def test_resources_are_required() -> None:
    assert _error("  []").endswith("resources: Required value: at least one resources is required")


def test_key_length_is_checked_and_the_secret_redacted() -> None:
    short = base64.b64encode(b"12345678").decode()
    message = _error(f"- resources: [secrets]\n  providers:\n  - secretbox: {{keys: [{{name: k, secret: {short}}}]}}\n")
    assert message == (
        'error while parsing encryption provider configuration file "enc.yaml": '
        'resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": '
        "secret is not of the expected length, got 8, expected one of [32]"
    )


def test_secrets_must_be_base64() -> None:
    message = _error("- resources: [secrets]\n  providers:\n  - aesgcm: {keys: [{name: k, secret: '!!'}]}\n")
    assert message.endswith('.aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded')


def test_one_provider_per_element() -> None:
    message = _error(
        f"- resources: [secrets]\n  providers:\n  - identity: {{}}\n"
        f"    aescbc: {{keys: [{{name: k, secret: {KEY}}}]}}\n"
    )
    assert "more than one provider specified in a single element, should split into different list elements" in message


@pytest.mark.parametrize(
    ("resource", "detail"),
    [
        ("*", "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"),
        ("Secrets", "resource name should not contain capital letters"),
        ("events.events.k8s.io", "objects are stored using the 'events' API group in etcd"),
        ("deployments.extensions", "'extensions' group has been removed and cannot be used for encryption"),
        ("secrets.*", "encrypting the same resource across groups is not supported"),
        ("serviceipallocations", "resources which do not have REST API/s cannot be encrypted"),
    ],
)
def test_resource_names_are_checked(resource: str, detail: str) -> None:
    message = _error(f"- resources: ['{resource}']\n  providers: [{{identity: {{}}}}]\n")
    assert f'resources[0].resources[0]: Invalid value: "{resource}": ' in message
    assert detail in message


def test_overlapping_and_duplicate_resources_are_refused() -> None:
    message = _error("- resources: [secrets, '*.', secrets]\n  providers: [{identity: {}}]\n")
    assert "the same resource cannot be specified multiple times" in message
    assert "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed" in message


def test_kms_needs_v2_a_unix_endpoint_and_unique_names() -> None:
    message = _error(
        "- resources: [secrets]\n  providers:\n"
        "  - kms: {name: a, endpoint: 'tcp://x', apiVersion: v2}\n"
        "  - kms: {name: a, endpoint: 'unix:///s.sock', apiVersion: v2, cachesize: 10}\n"
        "  - kms: {name: b, endpoint: 'unix:///s.sock'}\n"
    )
    assert 'providers[0].kms.endpoint: Invalid value: "tcp://x": unsupported scheme "tcp" for KMS provider' in message
    assert 'providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique' in message
    assert "providers[1].kms.cachesize: Invalid value: 10: cachesize is not supported in v2" in message
    assert 'providers[2].kms.apiVersion: Invalid value: "v1": KMSv1 is deprecated' in message


def test_a_bad_file_stops_the_server_with_one_line(tmp_path) -> None:
    path = tmp_path / "enc.yaml"
    path.write_bytes(_file("- resources: [Secrets]\n  providers: [{identity: {}}]\n").replace(b"k8s.io", b"svc"))
    result = subprocess.run(
        [sys.executable, "-m", "svc.apiserver", f"--encryption-provider-config={path}", f"--data-dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "resource name should not contain capital letters" in lines[0]


def test_automatic_reload_needs_a_file(tmp_path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "svc.apiserver",
            "--encryption-provider-config-automatic-reload",
            f"--data-dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert (
        "--encryption-provider-config-automatic-reload must be set with --encryption-provider-config" in result.stderr
    )
