"""Helpers of the token tests: keys the test owns, service accounts, TokenRequests, token clients."""

from __future__ import annotations

import dataclasses
import time
import uuid
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer

AUTHN = "authentication.svc"
ISSUER = "https://svc.default.svc.cluster.local"
REVIEW = {"apiVersion": f"{AUTHN}/v1", "kind": "SelfSubjectReview", "metadata": {}}


def write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> Path:
    path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return path


def write_public_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> Path:
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    path.write_bytes(public)
    return path


@dataclasses.dataclass
class Keyed:
    """A server that signs with a key the test also holds, so the test can mint tokens of any shape."""

    server: RunningServer
    key: ec.EllipticCurvePrivateKey

    def sign(self, claims: dict[str, Any], *, issuer: str = ISSUER) -> str:
        return jwt.encode({"iss": issuer, **claims}, self.key, algorithm="ES256")


@pytest.fixture
def signing_key(tmp_path: Path) -> tuple[ec.EllipticCurvePrivateKey, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    return key, write_key(tmp_path / "sa.key", key)


@pytest.fixture
def keyed(svc_server_factory, signing_key) -> Keyed:
    key, path = signing_key
    server = svc_server_factory(f"--service-account-signing-key-file={path}", f"--service-account-key-file={path}")
    return Keyed(server, key)


def create(client: RestClient, path: str, obj: dict[str, Any]) -> dict[str, Any]:
    response = client.request("POST", path, body=obj)
    assert response.status == 201, response.json()
    return response.json()


def service_account(client: RestClient, name: str = "robot", namespace: str = "default") -> dict[str, Any]:
    obj = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}
    return create(client, f"/api/v1/namespaces/{namespace}/serviceaccounts", obj)


def pod(client: RestClient, name: str, account: str, namespace: str = "default") -> dict[str, Any]:
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"serviceAccountName": account, "containers": [{"name": "c", "image": "busybox"}]},
    }
    return create(client, f"/api/v1/namespaces/{namespace}/pods", obj)


def request_token(
    client: RestClient, name: str = "robot", namespace: str = "default", group: str = AUTHN, **spec: Any
) -> Any:
    body = {"apiVersion": f"{group}/v1", "kind": "TokenRequest", "spec": spec}
    return client.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", body=body)


def token_for(client: RestClient, name: str = "robot", namespace: str = "default", **spec: Any) -> str:
    response = request_token(client, name, namespace, **spec)
    assert response.status == 201, response.json()
    return response.json()["status"]["token"]


def token_client(server: RunningServer, token: str) -> RestClient:
    config = server.anonymous_client().config
    client = RestClient(dataclasses.replace(config, token=token))
    server._clients.append(client)
    return client


def whoami(server: RunningServer, token: str, group: str = AUTHN) -> Any:
    review = {**REVIEW, "apiVersion": f"{group}/v1"}
    return token_client(server, token).request("POST", f"/apis/{group}/v1/selfsubjectreviews", body=review)


def claims_for(account: dict[str, Any], *, audience: str = ISSUER, lifetime: float = 600, **extra: Any) -> dict:
    """The claims TokenRequest would sign for `account` (profile svc), issued now."""
    now = int(time.time())
    metadata = account["metadata"]
    return {
        "aud": [audience],
        "exp": now + lifetime,
        "iat": now,
        "nbf": now,
        "jti": str(uuid.uuid4()),
        "sub": f"system:serviceaccount:{metadata['namespace']}:{metadata['name']}",
        "svc.io": {
            "namespace": metadata["namespace"],
            "serviceaccount": {"name": metadata["name"], "uid": metadata["uid"]},
            **extra,
        },
    }
