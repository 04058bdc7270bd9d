"""The webhook client: a real HTTPS server on loopback, verified against the configuration's caBundle,
with upstream's wording of every failure."""

from __future__ import annotations

import asyncio
import base64
import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from svc.apiserver.webhook_client import (
    ClientConfig,
    ResolveError,
    ServiceReference,
    WebhookCallError,
    WebhookClient,
)
from svc.apiserver.webhook_service_resolver import endpoints_resolver
from svc.testing.webhook_server import https_webhook, issue_webhook_tls


async def _echo(request: web.Request) -> web.Response:
    body = await request.json()
    return web.json_response({"echo": body, "host": request.host, "path": request.path_qs})


def _call(config: ClientConfig, body: Any, *, timeout: float = 5.0, resolver=None) -> Any:
    async def run() -> Any:
        client = WebhookClient(resolver)
        try:
            return await client.post_json(config, body, timeout_seconds=timeout)
        finally:
            await client.close()

    return asyncio.run(run())


def _serve_and_call(tmp_path: Path, handler, config_for, *, hosts=("127.0.0.1",), timeout=5.0, resolver=None) -> Any:
    tls = issue_webhook_tls(tmp_path / "tls", list(hosts))

    async def run() -> Any:
        async with https_webhook(handler, tls, "/convert") as base:
            client = WebhookClient(resolver)
            try:
                return await client.post_json(config_for(base, tls), {"a": 1}, timeout_seconds=timeout)
            finally:
                await client.close()

    return asyncio.run(run())


def test_url_webhook_answers_over_tls_verified_by_the_ca_bundle(tmp_path: Path) -> None:
    answer = _serve_and_call(
        tmp_path, _echo, lambda base, tls: ClientConfig(url=f"{base}/convert", ca_bundle=tls.ca_pem)
    )
    assert answer["echo"] == {"a": 1}
    assert answer["path"] == "/convert?timeout=5s"


def test_certificate_from_another_ca_is_unknown_authority(tmp_path: Path) -> None:
    other = issue_webhook_tls(tmp_path / "other", ["127.0.0.1"])
    with pytest.raises(WebhookCallError) as caught:
        _serve_and_call(tmp_path, _echo, lambda base, tls: ClientConfig(url=f"{base}/convert", ca_bundle=other.ca_pem))
    assert str(caught.value).endswith(
        '/convert?timeout=5s": tls: failed to verify certificate: x509: certificate signed by unknown authority'
    )


def test_empty_ca_bundle_trusts_only_system_roots(tmp_path: Path) -> None:
    with pytest.raises(WebhookCallError, match="certificate signed by unknown authority"):
        _serve_and_call(tmp_path, _echo, lambda base, tls: ClientConfig(url=f"{base}/convert"))


def test_unparsable_ca_bundle_is_refused(tmp_path: Path) -> None:
    with pytest.raises(
        WebhookCallError, match=r"^unable to load root certificates: unable to parse bytes as PEM block$"
    ):
        _call(ClientConfig(url="https://127.0.0.1:1/", ca_bundle=b"not a certificate"), {})


def test_unreachable_url_is_connection_refused(tmp_path: Path) -> None:
    from svc.testing.harness import free_port

    port = free_port()
    with pytest.raises(WebhookCallError) as caught:
        _call(ClientConfig(url=f"https://127.0.0.1:{port}/convert"), {}, timeout=30)
    assert str(caught.value) == (
        f'Post "https://127.0.0.1:{port}/convert?timeout=30s": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )


def test_slow_webhook_is_context_deadline_exceeded(tmp_path: Path) -> None:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(5)
        return web.json_response({})

    with pytest.raises(
        WebhookCallError, match=r'^Post "https://127\.0\.0\.1:\d+/convert\?timeout=1s": context deadline exceeded$'
    ):
        _serve_and_call(
            tmp_path, slow, lambda base, tls: ClientConfig(url=f"{base}/convert", ca_bundle=tls.ca_pem), timeout=1
        )


@pytest.mark.parametrize(
    ("code", "body", "message"),
    [
        (404, b"404: Not Found", "the server could not find the requested resource"),
        (500, b"boom", 'an error on the server ("boom") has prevented the request from succeeding'),
        (403, b'{"kind":"Status","message":"no way"}', "no way"),
    ],
)
def test_error_answers_are_client_go_errors(tmp_path: Path, code: int, body: bytes, message: str) -> None:
    async def failing(request: web.Request) -> web.Response:
        return web.Response(status=code, body=body)

    with pytest.raises(WebhookCallError) as caught:
        _serve_and_call(tmp_path, failing, lambda base, tls: ClientConfig(url=f"{base}/convert", ca_bundle=tls.ca_pem))
    assert str(caught.value) == message


def test_service_reference_dials_the_resolved_address_and_verifies_the_service_name(tmp_path: Path) -> None:
    seen: list[tuple[str, str, int]] = []
    ports: list[int] = []

    async def resolver(namespace: str, name: str, port: int) -> tuple[str, int]:
        seen.append((namespace, name, port))
        return "127.0.0.1", ports[0]

    def config_for(base: str, tls) -> ClientConfig:
        ports.append(int(base.rsplit(":", 1)[1]))
        return ClientConfig(service=ServiceReference("hooks", "converter", "/convert", 8443), ca_bundle=tls.ca_pem)

    answer = _serve_and_call(tmp_path, _echo, config_for, hosts=["converter.hooks.svc"], resolver=resolver)
    assert seen == [("hooks", "converter", 8443)]
    assert answer["host"] == "converter.hooks.svc:8443"


def test_service_certificate_must_name_the_service(tmp_path: Path) -> None:
    ports: list[int] = []

    async def resolver(namespace: str, name: str, port: int) -> tuple[str, int]:
        return "127.0.0.1", ports[0]

    def config_for(base: str, tls) -> ClientConfig:
        ports.append(int(base.rsplit(":", 1)[1]))
        return ClientConfig(service=ServiceReference("hooks", "converter", "/convert"), ca_bundle=tls.ca_pem)

    with pytest.raises(WebhookCallError, match=r'^Post "https://converter\.hooks\.svc:443/convert\?timeout=5s": tls: '):
        _serve_and_call(tmp_path, _echo, config_for, hosts=["127.0.0.1"], resolver=resolver)


def test_client_config_from_api_decodes_the_ca_bundle_and_defaults_the_port() -> None:
    config = ClientConfig.from_api(
        {"service": {"namespace": "ns", "name": "svc"}, "caBundle": base64.b64encode(b"PEM").decode()}
    )
    assert config == ClientConfig(service=ServiceReference("ns", "svc", "", 443), ca_bundle=b"PEM")


# -- the endpoints resolver ------------------------------------------------------------------------


def _resolve(objects: dict[tuple[str, str], dict[str, Any]], port: int = 443) -> tuple[str, int]:
    async def get(resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        return objects.get((resource, name))

    return asyncio.run(endpoints_resolver(get)("ns", "hook", port))


_SERVICE = {"spec": {"ports": [{"name": "https", "port": 443, "targetPort": 9443}]}}


def test_resolver_picks_the_endpoint_port_named_like_the_service_port() -> None:
    endpoints = {
        "subsets": [
            {
                "addresses": [{"ip": "127.0.0.1"}],
                "ports": [{"name": "metrics", "port": 8080}, {"name": "https", "port": 9443}],
            }
        ]
    }
    assert _resolve({("services", "hook"): _SERVICE, ("endpoints", "hook"): endpoints}) == ("127.0.0.1", 9443)


def test_resolver_routes_an_external_name_service_to_its_name_and_the_referenced_port() -> None:
    service = {"spec": {"type": "ExternalName", "externalName": "localhost"}}
    assert _resolve({("services", "hook"): service}, 8443) == ("localhost", 8443)


@pytest.mark.parametrize(
    ("objects", "port", "message"),
    [
        ({}, 443, 'service "hook" not found'),
        ({("services", "hook"): _SERVICE}, 8443, 'no service port 8443 found for service "hook"'),
        ({("services", "hook"): _SERVICE}, 443, 'endpoints "hook" not found'),
        ({("services", "hook"): _SERVICE, ("endpoints", "hook"): {}}, 443, 'no endpoints available for service "hook"'),
        ({("services", "hook"): {"spec": {"type": "Headless"}}}, 443, 'unsupported service type "Headless"'),
    ],
)
def test_resolver_errors_are_upstreams(objects, port: int, message: str) -> None:
    with pytest.raises(ResolveError, match=f"^{re.escape(message)}$"):
        _resolve(objects, port)
