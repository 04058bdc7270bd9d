"""The aggregator's flags, and where a service reference leads (EndpointSlices, cluster IP, external name)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from svc.apiserver.aggregator.resolver import Address, Resolver
from svc.apiserver.options import parse_options
from svc.apiserver.webhook_client import ResolveError, ServiceReference

SERVICE = {
    "metadata": {"name": "metrics", "namespace": "default"},
    "spec": {"type": "ClusterIP", "clusterIP": "10.0.0.10", "ports": [{"name": "https", "port": 443}]},
}


def _slice(address: str, ready: bool, port_name: str = "https", port: int = 4443) -> dict:
    return {
        "endpoints": [{"addresses": [address], "conditions": {"ready": ready}}],
        "ports": [{"name": port_name, "port": port}],
    }


def _resolve(service: dict | None, slices: list[dict], *, routing: bool) -> Address:
    async def get_service(namespace: str, name: str) -> dict | None:
        return service

    async def list_slices(namespace: str, name: str) -> list[dict]:
        return slices

    resolver = Resolver(get_service, list_slices, endpoint_routing=routing)
    return asyncio.run(resolver.resolve(ServiceReference("default", "metrics", port=443)))


def test_endpoint_routing_picks_a_ready_endpoint_on_the_named_port() -> None:
    slices = [_slice("10.1.0.1", False), _slice("10.1.0.2", True), _slice("10.1.0.3", True, "metrics")]
    assert _resolve(SERVICE, slices, routing=True) == Address("10.1.0.2", 4443)


def test_without_endpoint_routing_the_cluster_ip_is_dialled() -> None:
    assert _resolve(SERVICE, [], routing=False) == Address("10.0.0.10", 443)


def test_an_external_name_service_is_dialled_by_name_on_the_referenced_port() -> None:
    external = {"metadata": SERVICE["metadata"], "spec": {"type": "ExternalName", "externalName": "ext.example"}}
    assert _resolve(external, [], routing=True) == Address("ext.example", 443)


def test_no_ready_endpoint_is_a_resolve_error() -> None:
    with pytest.raises(ResolveError, match='no endpoints available for service "metrics"'):
        _resolve(SERVICE, [_slice("10.1.0.1", False)], routing=True)


def test_the_flags_parse(tmp_path: Path) -> None:
    cert, key = tmp_path / "c.crt", tmp_path / "c.key"
    cert.write_text("x")
    key.write_text("x")
    options = parse_options(
        ["--enable-aggregator-routing", f"--proxy-client-cert-file={cert}", f"--proxy-client-key-file={key}"]
    ).aggregator
    assert options.enable_aggregator_routing and options.reject_forwarding_redirect
    assert (options.proxy_client_cert_file, options.proxy_client_key_file) == (str(cert), str(key))


def test_a_proxy_client_certificate_without_its_key_is_refused(capsys, tmp_path: Path) -> None:
    cert = tmp_path / "c.crt"
    cert.write_text("x")
    with pytest.raises(SystemExit) as exit_info:
        parse_options([f"--proxy-client-cert-file={cert}"])
    assert exit_info.value.code == 2
    assert "--proxy-client-cert-file and --proxy-client-key-file must be given together" in capsys.readouterr().err


def test_a_bad_boolean_is_refused_with_gos_wording(capsys) -> None:
    with pytest.raises(SystemExit):
        parse_options(["--enable-aggregator-routing=yes"])
    assert 'strconv.ParseBool: parsing "yes": invalid syntax' in capsys.readouterr().err
