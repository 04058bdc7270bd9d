"""The bootstrap signer over seeded caches."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac

from svc.controllers.bootstrapsigner import BootstrapSigner, detached_signature
from svc.controllers.deployment_math import rfc3339
from tests.controllers.fakes import make_context

PATH = "/api/v1/namespaces/svc-public/configmaps/cluster-info"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def token(token_id: str, *, signing: str = "true", expires: str | None = None) -> dict:
    data = {"token-id": b64(token_id), "token-secret": b64("0123456789abcdef"), "usage-bootstrap-signing": b64(signing)}
    if expires:
        data["expiration"] = b64(expires)
    metadata = {"name": f"bootstrap-token-{token_id}", "namespace": "svc-system"}
    return {"metadata": metadata, "type": "bootstrap.svc.io/token", "data": data}


def cluster_info(**extra: str) -> dict:
    return {
        "metadata": {"name": "cluster-info", "namespace": "svc-public"},
        "data": {"kubeconfig": "apiVersion: v1\n", **extra},
    }


def test_the_detached_signature_is_an_hs256_jws_without_its_payload() -> None:
    signature = detached_signature("hello", "abcdef", "secret")
    header, payload, mac = signature.split(".")
    assert payload == ""
    assert base64.urlsafe_b64decode(header + "==") == b'{"alg":"HS256","kid":"abcdef"}'
    expected = hmac.new(b"secret", f"{header}.aGVsbG8".encode(), hashlib.sha256).digest()
    assert base64.urlsafe_b64decode(mac + "=") == expected


def test_valid_signing_tokens_sign_the_kubeconfig_and_stale_signatures_go() -> None:
    async def scenario() -> None:
        context, client = make_context()
        signer = BootstrapSigner(context)
        past = rfc3339(context.clock.wall() - 10)
        signer.secrets.replace([token("abcdef"), token("nosign", signing="false"), token("old123", expires=past)])
        signer.configmaps.replace([cluster_info(**{"jws-kubeconfig-gone00": "x"})])
        await signer.sync(signer.key)
        [(verb, path, body)] = client.calls
        assert (verb, path) == ("update", PATH)
        assert body["data"] == {
            "kubeconfig": "apiVersion: v1\n",
            "jws-kubeconfig-abcdef": detached_signature("apiVersion: v1\n", "abcdef", "0123456789abcdef"),
        }

    asyncio.run(scenario())


def test_signatures_already_right_are_not_rewritten() -> None:
    async def scenario() -> None:
        context, client = make_context()
        signer = BootstrapSigner(context)
        signer.secrets.replace([token("abcdef")])
        signature = detached_signature("apiVersion: v1\n", "abcdef", "0123456789abcdef")
        signer.configmaps.replace([cluster_info(**{"jws-kubeconfig-abcdef": signature})])
        await signer.sync(signer.key)
        assert client.calls == []

    asyncio.run(scenario())


def test_tokens_that_cannot_sign_are_skipped_without_failing_the_sync() -> None:
    async def scenario() -> None:
        context, client = make_context()
        signer = BootstrapSigner(context)
        unparsable_expiry = token("badexp", expires="next tuesday")
        wrong_name = token("abcdef")
        wrong_name["metadata"]["name"] = "bootstrap-token-other0"
        not_base64 = token("nob64x")
        not_base64["data"]["token-secret"] = "%%%"
        signer.secrets.replace([unparsable_expiry, wrong_name, not_base64])
        signer.configmaps.replace([cluster_info()])
        await signer.sync(signer.key)
        assert client.calls == []

    asyncio.run(scenario())
