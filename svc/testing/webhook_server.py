"""A real HTTPS webhook on loopback for tests: a throwaway CA, a serving certificate, an aiohttp server.

Conversion and admission webhooks are always called over TLS and verified against the `caBundle` of
their configuration, so a test needs a CA of its own and a server presenting a certificate from it
for the name the API server will verify (`127.0.0.1` for a `url`, `<name>.<namespace>.svc` for a
service reference). `https_webhook` serves on the caller's event loop (for tests that call the client
directly); `threaded_https_webhook` on a thread of its own (for tests that drive a server through a
blocking client).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import ipaddress
import ssl
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class WebhookTls:
    ca_pem: bytes
    cert_file: Path
    key_file: Path

    @property
    def ca_bundle(self) -> str:
        """The CA as a configuration's `caBundle` field carries it (base64 of the PEM)."""
        return base64.b64encode(self.ca_pem).decode()

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert_file, self.key_file)
        return context


def _certificate(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    hosts: list[str] | None = None,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    issuer_name, signer = issuer or (name, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=issuer is None, path_length=None), critical=True)
    )
    if issuer is None:
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if hosts:
        names: list[x509.GeneralName] = []
        for host in hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names.append(x509.DNSName(host))
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(signer, hashes.SHA256())


def issue_webhook_tls(directory: Path, hosts: list[str]) -> WebhookTls:
    """A new CA and a serving certificate for `hosts`, the certificate and key written into `directory`."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate(f"svc-test-webhook-ca-{x509.random_serial_number():x}", ca_key, None)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _certificate(hosts[0], key, (ca.subject, ca_key), hosts)
    directory.mkdir(parents=True, exist_ok=True)
    cert_file, key_file = directory / "webhook.crt", directory / "webhook.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return WebhookTls(ca.public_bytes(serialization.Encoding.PEM), cert_file, key_file)


@contextlib.asynccontextmanager
async def https_webhook(handler: Handler, tls: WebhookTls, path: str = "/") -> AsyncIterator[str]:
    """Serve `handler` for POSTs to `path` on 127.0.0.1; yields the base URL (`https://127.0.0.1:<port>`)."""
    app = web.Application()
    app.router.add_post(path, handler)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=tls.server_context())
    await site.start()
    try:
        port = runner.addresses[0][1]
        yield f"https://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@contextlib.contextmanager
def threaded_https_webhook(handler: Handler, tls: WebhookTls, path: str = "/") -> Iterator[str]:
    """`https_webhook` on an event loop thread of its own, for tests that block."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="svc-test-webhook", daemon=True)
    thread.start()
    server = https_webhook(handler, tls, path)
    try:
        yield asyncio.run_coroutine_threadsafe(server.__aenter__(), loop).result(timeout=10)
    finally:
        asyncio.run_coroutine_threadsafe(server.__aexit__(None, None, None), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
