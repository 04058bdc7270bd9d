"""Calling a webhook named by a `clientConfig`, as upstream's webhook client manager does.

Conversion webhooks of custom resources and admission webhooks share this: the API object's
`clientConfig` (`url` | `service`, `caBundle`) becomes an endpoint and a TLS context, a JSON body is
POSTed with a timeout, and every failure is one `WebhookCallError` whose text is the one upstream's
Go client prints (`Post "<url>": dial tcp ...: connect: connection refused`), because callers put
that text into the Status message clients see.

The rules, as upstream (`k8s.io/apiserver/pkg/util/webhook`), with the one place svc must choose:
- `url` is dialled as written (port 443 when it has none).
- `service` addresses `https://<name>.<namespace>.svc:<port><path>` (port 443 by default), and the
  serving certificate must be valid for `<name>.<namespace>.svc`. Which address is dialled is asked of a
  `ServiceResolver`; svc's (`webhook_service_resolver`) routes to the Service's endpoints, or to the
  external name of an ExternalName Service, which is how a test reaches a webhook on loopback.
- `caBundle` holds the only roots trusted; without one, the system roots are.
- HTTP/1.1, no client credentials (upstream's default when no kubeconfig names the webhook), and the
  timeout travels in the query (`?timeout=30s`) as client-go sends it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import errno
import functools
import ssl
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from svc.machinery.duration import format_duration

_DEFAULT_PORT = 443


class WebhookCallError(Exception):
    """A call that produced no usable response; `str()` is upstream's wording of the failure."""


class ResolveError(Exception):
    """A service reference that leads to no address (`service "x" not found`, `no endpoints ...`)."""


ServiceResolver = Callable[[str, str, int], Awaitable[tuple[str, int]]]
"""(namespace, name, service port) -> (host, port) to dial; raises `ResolveError`."""


@dataclass(frozen=True)
class ServiceReference:
    namespace: str
    name: str
    path: str = ""
    port: int = _DEFAULT_PORT

    @property
    def server_name(self) -> str:
        """The name the serving certificate must carry, and the host the request is addressed to."""
        return f"{self.name}.{self.namespace}.svc"


@dataclass(frozen=True)
class ClientConfig:
    url: str = ""
    service: ServiceReference | None = None
    ca_bundle: bytes = b""
    """PEM certificates (already decoded from the API object's base64)."""

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> ClientConfig:
        """From an API object's `clientConfig` (admissionregistration and apiextensions spell it alike)."""
        service = data.get("service")
        reference = None
        if service:
            reference = ServiceReference(
                namespace=service.get("namespace") or "",
                name=service.get("name") or "",
                path=service.get("path") or "",
                port=int(service.get("port") or _DEFAULT_PORT),
            )
        try:
            ca_bundle = base64.b64decode(data.get("caBundle") or "", validate=True)
        except (binascii.Error, ValueError):
            ca_bundle = b"\x00"  # not PEM: fails like any unparsable bundle when a call is made
        return cls(url=data.get("url") or "", service=reference, ca_bundle=ca_bundle)


@dataclass(frozen=True)
class Endpoint:
    """Where one call goes: `url` as upstream prints it, `host`/`port` as dialled, `server_name` as verified."""

    url: str
    host: str
    port: int
    server_name: str | None

    @property
    def request_url(self) -> str:
        """The URL aiohttp connects to: the dialled address, with the request's path and query."""
        parts = urlsplit(self.url)
        host = f"[{self.host}]" if ":" in self.host else self.host
        query = f"?{parts.query}" if parts.query else ""
        return f"https://{host}:{self.port}{parts.path}{query}"


@functools.lru_cache(maxsize=64)
def ssl_context(ca_bundle: bytes) -> ssl.SSLContext:
    """The TLS context for a caBundle (cached: building one parses the roots, about a millisecond)."""
    if ca_bundle:
        try:
            context = ssl.create_default_context(cadata=ca_bundle.decode("ascii"))
        except (ssl.SSLError, UnicodeDecodeError, ValueError):
            raise WebhookCallError("unable to load root certificates: unable to parse bytes as PEM block") from None
    else:
        context = ssl.create_default_context()
    context.set_alpn_protocols(["http/1.1"])
    return context


def _with_timeout(url: str, timeout_seconds: float) -> str:
    return f"{url}{'&' if '?' in url else '?'}timeout={format_duration(timeout_seconds)}"


async def resolve_endpoint(
    config: ClientConfig, resolver: ServiceResolver | None, *, timeout_seconds: float
) -> Endpoint:
    """The endpoint of one call; the address of a service reference is looked up now, per call, as
    upstream's dialer does, so endpoints that move are followed."""
    if config.service is not None:
        service = config.service
        url = _with_timeout(f"https://{service.server_name}:{service.port}{service.path}", timeout_seconds)
        if resolver is None:
            raise WebhookCallError(f'Post "{url}": no resolver for service references')
        try:
            host, port = await resolver(service.namespace, service.name, service.port)
        except ResolveError as error:
            raise WebhookCallError(f'Post "{url}": {error}') from None
        return Endpoint(url=url, host=host, port=port, server_name=service.server_name)
    if not config.url:
        raise WebhookCallError("webhook configuration must have either service or URL")
    try:
        parts = urlsplit(config.url)
        host, port = parts.hostname or "", parts.port or _DEFAULT_PORT
    except ValueError as error:
        raise WebhookCallError(f"Unparsable URL: {error}") from None
    return Endpoint(url=_with_timeout(config.url, timeout_seconds), host=host, port=port, server_name=None)


def _transport_reason(error: BaseException, endpoint: Endpoint) -> str:
    """Go's wording of a failed dial, handshake or read."""
    if isinstance(error, TimeoutError):
        return "context deadline exceeded"
    if isinstance(error, aiohttp.ClientConnectorCertificateError):
        return _certificate_reason(error.certificate_error, endpoint)
    if isinstance(error, aiohttp.ClientSSLError):
        return f"remote error: tls: {error.strerror or error}"
    if isinstance(error, aiohttp.ClientConnectorDNSError):
        return f"dial tcp: lookup {endpoint.host}: no such host"
    if isinstance(error, aiohttp.ClientConnectorError):
        cause = error.os_error
        host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
        if cause.errno == errno.ECONNREFUSED:
            return f"dial tcp {host}:{endpoint.port}: connect: connection refused"
        return f"dial tcp {host}:{endpoint.port}: connect: {cause.strerror or cause}"
    if isinstance(error, aiohttp.ServerDisconnectedError):
        return "EOF"
    return str(error) or type(error).__name__


# OpenSSL verify codes (X509_V_ERR_*): a chain to no trusted root (2, 7, 18, 19, 20, 21), a validity
# window missed (9, 10), a name the certificate does not carry (62, 64).
_UNKNOWN_AUTHORITY = frozenset({2, 7, 18, 19, 20, 21})
_OUT_OF_DATE = frozenset({9, 10})
_WRONG_NAME = frozenset({62, 64})


def _certificate_reason(error: Exception, endpoint: Endpoint) -> str:
    code = getattr(error, "verify_code", 0)
    if code in _UNKNOWN_AUTHORITY:
        reason = "x509: certificate signed by unknown authority"
    elif code in _OUT_OF_DATE:
        reason = "x509: certificate has expired or is not yet valid"
    elif code in _WRONG_NAME:
        reason = f"x509: certificate is not valid for {endpoint.server_name or endpoint.host}"
    else:
        reason = f"x509: {getattr(error, 'verify_message', '') or error}"
    return f"tls: failed to verify certificate: {reason}"


_GENERIC_MESSAGES = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    409: "the server reported a conflict",
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the request",
}


def _status_error(code: int, body: bytes) -> str:
    """client-go's error for a non-2xx answer: the Status it carries, else a generic text per code."""
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError:
        decoded = None
    if isinstance(decoded, dict) and decoded.get("kind") == "Status" and decoded.get("message"):
        return str(decoded["message"])
    text = body.decode("utf-8", "replace").strip()
    if code in (403, 406, 415) and text:
        return text
    if code in _GENERIC_MESSAGES:
        return _GENERIC_MESSAGES[code]
    if code >= 500:
        return f'an error on the server ("{text}") has prevented the request from succeeding'
    return f"the server responded with the status code {code} but did not return more information"


class WebhookClient:
    """POSTs JSON to webhooks over one pooled aiohttp session (created on first use, in the running loop)."""

    def __init__(self, resolver: ServiceResolver | None = None) -> None:
        self.resolver = resolver
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, enable_cleanup_closed=False),
                skip_auto_headers=("User-Agent",),
            )
        return self._session

    async def post_json(self, config: ClientConfig, body: Any, *, timeout_seconds: float) -> Any:
        """The decoded JSON answer of a 2xx response; `WebhookCallError` for anything else."""
        endpoint = await resolve_endpoint(config, self.resolver, timeout_seconds=timeout_seconds)
        context = ssl_context(config.ca_bundle)
        payload = orjson.dumps(body)
        headers = {"Content-Type": "application/json", "Accept": "application/json, */*"}
        if endpoint.server_name:
            headers["Host"] = urlsplit(endpoint.url).netloc  # the service's name, not the address dialled
        try:
            async with asyncio.timeout(timeout_seconds):
                async with self._client().post(
                    endpoint.request_url,
                    data=payload,
                    headers=headers,
                    ssl=context,
                    server_hostname=endpoint.server_name,
                ) as response:
                    data = await response.read()
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            raise WebhookCallError(f'Post "{endpoint.url}": {_transport_reason(error, endpoint)}') from None
        if not 200 <= response.status <= 299:
            raise WebhookCallError(_status_error(response.status, data))
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as error:
            raise WebhookCallError(f"couldn't get version/kind; json parse error: {error}") from None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
