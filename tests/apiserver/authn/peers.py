"""Real HTTPS peers for authentication tests: a CA, an aiohttp app served on loopback in its own
thread, an OIDC provider (discovery + JWKS, rotating keys, signing tokens) and a TokenReview webhook."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import ipaddress
import json
import ssl
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jwt
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer

NOW = datetime.datetime.now(datetime.UTC)
DAY = datetime.timedelta(days=1)


@dataclasses.dataclass
class Authority:
    certificate: x509.Certificate
    key: ec.EllipticCurvePrivateKey

    @classmethod
    def create(cls, name: str = "test-ca") -> Authority:
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        certificate = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(NOW - DAY)
            .not_valid_after(NOW + DAY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256())
        )
        return cls(certificate, key)

    @property
    def pem(self) -> str:
        return self.certificate.public_bytes(serialization.Encoding.PEM).decode()

    def issue(
        self, common_name: str, *, organizations: tuple[str, ...] = (), server: bool = False
    ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        key = ec.generate_private_key(ec.SECP256R1())
        names = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, org) for org in organizations]
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([*names, x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
            .issuer_name(self.certificate.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(NOW - DAY)
            .not_valid_after(NOW + DAY)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
            ).add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        else:
            builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        return builder.sign(self.key, hashes.SHA256()), key

    def write_pair(self, directory: Path, name: str, **kwargs: Any) -> tuple[Path, Path]:
        certificate, key = self.issue(name, **kwargs)
        cert_file, key_file = directory / f"{name}.crt", directory / f"{name}.key"
        cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        return cert_file, key_file


@contextlib.contextmanager
def serve_https(app: web.Application, authority: Authority, tmp_path: Path) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 with a certificate from `authority`; yields the base URL."""
    cert_file, key_file = authority.write_pair(tmp_path, f"serving-{id(app)}", server=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="https-peer", daemon=True)
    thread.start()
    runner = web.AppRunner(app)
    asyncio.run_coroutine_threadsafe(runner.setup(), loop).result(10)
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    asyncio.run_coroutine_threadsafe(site.start(), loop).result(10)
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"https://127.0.0.1:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


class Provider:
    """An OIDC provider: `/.well-known/openid-configuration` and `/keys`, signing with its current key."""

    def __init__(self) -> None:
        self.url = ""
        self.keys: list[tuple[str, rsa.RSAPrivateKey]] = []
        self.jwks_requests = 0
        self.rotate()
        self.app = web.Application()
        self.app.router.add_get("/.well-known/openid-configuration", self._discovery)
        self.app.router.add_get("/keys", self._jwks)

    def rotate(self) -> str:
        """A new signing key; the old ones leave the key set. Returns the new key id."""
        kid = f"key-{len(self.keys) + 1}"
        self.keys = [(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))]
        return kid

    async def _discovery(self, request: web.Request) -> web.Response:
        return web.json_response({"issuer": self.url, "jwks_uri": f"{self.url}/keys"})

    async def _jwks(self, request: web.Request) -> web.Response:
        self.jwks_requests += 1
        keys = []
        for kid, key in self.keys:
            entry = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
            keys.append({**entry, "kid": kid, "use": "sig", "alg": "RS256"})
        return web.json_response({"keys": keys})

    def token(self, *, key: rsa.RSAPrivateKey | None = None, kid: str | None = None, **claims: Any) -> str:
        now = int(time.time())
        payload = {"iss": self.url, "aud": "svc", "sub": "alice", "iat": now, "exp": now + 600, "jti": uuid.uuid4().hex}
        payload.update(claims)
        current_kid, current_key = self.keys[0]
        return jwt.encode(payload, key or current_key, algorithm="RS256", headers={"kid": kid or current_kid})


class Webhook:
    """A TokenReview service: answers with `users[token]`, or not authenticated; counts the calls."""

    def __init__(self, users: dict[str, dict[str, Any]]) -> None:
        self.users = users
        self.reviews: list[dict[str, Any]] = []
        self.authorizations: list[str] = []
        self.fail = False
        self.audiences: list[str] | None = None  # named in authenticated answers when set
        self.app = web.Application()
        self.app.router.add_post("/review", self._review)

    async def _review(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.reviews.append(review)
        self.authorizations.append(request.headers.get("Authorization", ""))
        if self.fail:
            return web.Response(status=500, text="broken")
        user = self.users.get(review["spec"]["token"])
        status: dict[str, Any] = {"authenticated": True, "user": user} if user else {"authenticated": False}
        if user and self.audiences is not None:
            status["audiences"] = self.audiences
        return web.json_response({"apiVersion": review["apiVersion"], "kind": "TokenReview", "status": status})


def token_client(server: RunningServer, token: str) -> RestClient:
    base = server.anonymous_client().config
    return RestClient(dataclasses.replace(base, token=token))


def whoami(client: RestClient, group: str = "authentication.svc") -> tuple[int, dict[str, Any]]:
    review = {"apiVersion": f"{group}/v1", "kind": "SelfSubjectReview", "metadata": {}}
    response = client.request("POST", f"/apis/{group}/v1/selfsubjectreviews", body=review)
    body = response.json() if response.body else {}
    if response.status != 201:
        return response.status, body
    return response.status, body["status"]["userInfo"]


def wait_for(condition: Callable[[], bool], *, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False
