"""A real SubjectAccessReview webhook for tests: HTTPS on loopback with its own CA, in its own thread,
answering by a function of the review and keeping every review it received."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import ipaddress
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Answer = Callable[[dict[str, Any]], dict[str, Any] | int]
"""The status to answer for a review, or an HTTP status code to fail with."""

TOKEN = "webhook-caller-token"


def _certificates(directory: Path) -> tuple[bytes, Path, Path]:
    """A CA (PEM) and a serving pair for 127.0.0.1 signed by it."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sar-webhook-ca")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sar-webhook")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_file, key_file = directory / "sar-webhook.crt", directory / "sar-webhook.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return ca.public_bytes(serialization.Encoding.PEM), cert_file, key_file


class SarWebhook:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.reviews: list[dict[str, Any]] = []
        self.url = ""
        self.ca_pem = b""

    async def _handle(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.Response(status=401)
        review = await request.json()
        self.reviews.append(review)
        status = self.answer(review)
        if isinstance(status, int):
            return web.Response(status=status, text="failing on purpose")
        return web.json_response({"apiVersion": review["apiVersion"], "kind": "SubjectAccessReview", "status": status})

    def write_kubeconfig(self, path: Path) -> Path:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "sar",
                    "cluster": {
                        "server": f"{self.url}/authorize",
                        "certificate-authority-data": base64.b64encode(self.ca_pem).decode(),
                    },
                }
            ],
            "users": [{"name": "apiserver", "user": {"token": TOKEN}}],
            "contexts": [{"name": "sar", "context": {"cluster": "sar", "user": "apiserver"}}],
            "current-context": "sar",
        }
        path.write_text(yaml.safe_dump(config))
        return path


@contextlib.contextmanager
def serve_sar_webhook(answer: Answer, directory: Path) -> Iterator[SarWebhook]:
    webhook = SarWebhook(answer)
    webhook.ca_pem, cert_file, key_file = _certificates(directory)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    app = web.Application()
    app.router.add_post("/authorize", webhook._handle)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="sar-webhook", daemon=True)
    thread.start()
    runner = web.AppRunner(app)
    asyncio.run_coroutine_threadsafe(runner.setup(), loop).result(10)
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    asyncio.run_coroutine_threadsafe(site.start(), loop).result(10)
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    webhook.url = f"https://127.0.0.1:{port}"
    try:
        yield webhook
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
