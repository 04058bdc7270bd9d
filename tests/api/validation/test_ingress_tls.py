"""Ingress TLS entries: hosts (wildcards allowed) and the secret's name."""

from __future__ import annotations

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_more_kinds import INGRESS

NET = "networking.k8s.io"


def test_tls_with_a_secret_and_wildcard_host_passes() -> None:
    ingress = with_path(INGRESS, "spec.tls", [{"hosts": ["*.example.com"], "secretName": "web-tls"}])
    assert causes(NET, "Ingress", ingress) == []


def test_tls_secret_name_must_be_a_dns_subdomain() -> None:
    ingress = with_path(INGRESS, "spec.tls", [{"hosts": ["www.example.com"], "secretName": "Web_TLS"}])
    found = causes(NET, "Ingress", ingress)
    assert_causes(found, [("spec.tls[0].secretName", "FieldValueInvalid", "RFC 1123 subdomain")])
