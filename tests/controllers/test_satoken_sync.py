"""The serviceaccount-token and legacy-token-cleaner controllers over seeded caches."""

from __future__ import annotations

import asyncio
import base64
import datetime
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from svc.controllers.legacytokencleaner import LegacyTokenCleaner
from svc.controllers.satoken import ServiceAccountTokenController, load_signer
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
DAY = 86400.0


def key_file(tmp_path: Path) -> tuple[str, Any]:
    key = ec.generate_private_key(ec.SECP256R1())
    path = tmp_path / "sa.key"
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path.write_bytes(pem)
    return str(path), key.public_key()


def account(name: str = "builder", uid: str = "sa-uid") -> Obj:
    return {"metadata": {"name": name, "namespace": "ns", "uid": uid}}


def token_secret(name: str = "tok", *, annotations: Obj | None = None, data: Obj | None = None, **extra: Any) -> Obj:
    metadata = {"name": name, "namespace": "ns", "uid": f"uid-{name}", "resourceVersion": "3"}
    metadata["annotations"] = annotations or {"svc.io/service-account.name": "builder"}
    return {"metadata": metadata | extra, "type": "svc.io/service-account-token", "data": data or {}}


def controller(tmp_path: Path, accounts=(), secrets=()) -> tuple[ServiceAccountTokenController, Any, Any]:
    context, client = make_context(root_ca=b"CA PEM")
    path, public = key_file(tmp_path)
    tokens = ServiceAccountTokenController(context, load_signer(path, context))
    tokens.accounts.replace(list(accounts))
    tokens.secrets.replace(list(secrets))
    return tokens, client, public


def test_a_token_secret_gets_token_ca_and_namespace_with_the_legacy_claims(tmp_path: Path) -> None:
    async def scenario() -> None:
        secret = token_secret()
        tokens, client, public = controller(tmp_path, [account()], [secret])
        client.objects["/api/v1/namespaces/ns/secrets/tok"] = secret
        await tokens.sync_secret("ns/tok")
        verb, path, body = client.calls[-1]
        assert (verb, path) == ("update", "/api/v1/namespaces/ns/secrets/tok")
        assert base64.b64decode(body["data"]["ca.crt"]) == b"CA PEM"
        assert base64.b64decode(body["data"]["namespace"]) == b"ns"
        assert body["metadata"]["annotations"]["svc.io/service-account.uid"] == "sa-uid"
        claims = jwt.decode(base64.b64decode(body["data"]["token"]), public, algorithms=["ES256"])
        assert claims == {
            "iss": "svc/serviceaccount",
            "svc.io/serviceaccount/namespace": "ns",
            "svc.io/serviceaccount/secret.name": "tok",
            "svc.io/serviceaccount/service-account.name": "builder",
            "svc.io/serviceaccount/service-account.uid": "sa-uid",
            "sub": "system:serviceaccount:ns:builder",
        }

    asyncio.run(scenario())


def test_a_filled_secret_is_left_alone_and_a_stale_cache_waits(tmp_path: Path) -> None:
    async def scenario() -> None:
        data = {"token": "dA==", "ca.crt": base64.b64encode(b"CA PEM").decode(), "namespace": "bnM="}
        filled = token_secret(data=data)
        tokens, client, _ = controller(tmp_path, [account()], [filled])
        client.objects["/api/v1/namespaces/ns/secrets/tok"] = filled
        await tokens.sync_secret("ns/tok")
        assert [verb for verb, _, _ in client.calls] == ["get"]
        client.objects["/api/v1/namespaces/ns/secrets/tok"] = {
            **filled,
            "metadata": {**filled["metadata"], "resourceVersion": "9"},
        }
        with pytest.raises(Exception, match="behind"):
            await tokens.sync_secret("ns/tok")

    asyncio.run(scenario())


def test_a_secret_of_a_missing_or_replaced_account_is_deleted_with_a_uid_precondition(tmp_path: Path) -> None:
    async def scenario() -> None:
        stale = token_secret(
            annotations={"svc.io/service-account.name": "builder", "svc.io/service-account.uid": "old"}
        )
        tokens, client, _ = controller(tmp_path, [account()], [stale])
        await tokens.sync_secret("ns/tok")
        assert client.calls == [
            (
                "delete",
                "/api/v1/namespaces/ns/secrets/tok",
                {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "uid-tok"}},
            )
        ]
        orphan = token_secret(annotations={"svc.io/service-account.name": "nobody"})
        tokens, client, _ = controller(tmp_path, [], [orphan])
        await tokens.sync_secret("ns/tok")
        assert [verb for verb, _, _ in client.calls] == ["get", "delete"]

    asyncio.run(scenario())


def test_deleting_an_account_deletes_its_token_secrets_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        mine = token_secret("mine")
        other = token_secret("other", annotations={"svc.io/service-account.name": "someone"})
        tokens, client, _ = controller(tmp_path, [account()], [mine, other])
        tokens.accounts.replace([])
        await tokens.sync_account("ns/builder")
        assert [(verb, path) for verb, path, _ in client.calls] == [("delete", "/api/v1/namespaces/ns/secrets/mine")]

    asyncio.run(scenario())


def old_token(name: str, labels: Obj | None = None) -> Obj:
    annotations = {"svc.io/service-account.name": "builder", "svc.io/service-account.uid": "sa-uid"}
    secret = token_secret(name, annotations=annotations, creationTimestamp="2020-01-01T00:00:00Z")
    secret["metadata"]["labels"] = labels or {}
    return secret


def cleaner(secrets: list[Obj], pods: list[Obj] = (), since: str = "2020-01-01") -> tuple[LegacyTokenCleaner, Any]:
    context, client = make_context()
    context.clock.wall = lambda: datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC).timestamp()  # type: ignore[method-assign]
    tracking = "/api/v1/namespaces/svc-system/configmaps/svc-apiserver-legacy-service-account-token-tracking"
    client.objects[tracking] = {"data": {"since": since}}
    tokens = LegacyTokenCleaner(context)
    auto = {**account(), "secrets": [{"name": secret["metadata"]["name"]} for secret in secrets]}
    tokens.accounts.replace([auto])
    tokens.secrets.replace(secrets)
    tokens.pods.replace(list(pods))
    return tokens, client


def test_an_unused_auto_generated_token_is_first_marked_invalid_then_deleted() -> None:
    async def scenario() -> None:
        tokens, client = cleaner(
            [old_token("unused"), old_token("recent", {"svc.io/legacy-token-last-used": "2026-05-01"})]
        )
        await tokens.evaluate()
        assert client.calls[1:] == [
            (
                "patch:merge",
                "/api/v1/namespaces/ns/secrets/unused",
                {"metadata": {"uid": "uid-unused", "labels": {"svc.io/legacy-token-invalid-since": "2026-06-01"}}},
            )
        ]
        tokens, client = cleaner([old_token("unused", {"svc.io/legacy-token-invalid-since": "2025-01-01"})])
        await tokens.evaluate()
        assert [(verb, path) for verb, path, _ in client.calls[1:]] == [
            ("delete", "/api/v1/namespaces/ns/secrets/unused")
        ]

    asyncio.run(scenario())


def test_a_mounted_token_or_too_short_tracking_keeps_it() -> None:
    async def scenario() -> None:
        pod = {
            "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"volumes": [{"name": "t", "secret": {"secretName": "unused"}}]},
        }
        tokens, client = cleaner([old_token("unused")], [pod])
        await tokens.evaluate()
        assert len(client.calls) == 1
        tokens, client = cleaner([old_token("unused")], since="2026-01-01")
        await tokens.evaluate()
        assert len(client.calls) == 1

    asyncio.run(scenario())


def test_a_tracking_date_that_does_not_parse_cleans_nothing() -> None:
    async def scenario() -> None:
        tokens, client = cleaner([old_token("unused")], since="last spring")
        await tokens.evaluate()
        assert [verb for verb, _path, _body in client.calls] == ["get"]

    asyncio.run(scenario())
