"""The token cleaner over seeded caches with a fake clock."""

from __future__ import annotations

import asyncio
import base64

import pytest

from svc.client.workers import RequeueAfter
from svc.controllers.deployment_math import rfc3339
from svc.controllers.tokencleaner import TokenCleaner
from tests.controllers.fakes import make_context


def token(expires: float, *, kind: str = "bootstrap.svc.io/token") -> dict:
    data = {"expiration": base64.b64encode(rfc3339(expires).encode()).decode()}
    metadata = {"name": "bootstrap-token-abcdef", "namespace": "svc-system", "uid": "u1"}
    return {"metadata": metadata, "type": kind, "data": data}


def test_an_expired_token_is_deleted_guarded_by_its_uid() -> None:
    async def scenario() -> None:
        context, client = make_context()
        cleaner = TokenCleaner(context)
        cleaner.secrets.replace([token(context.clock.wall() - 1)])
        await cleaner.sync("svc-system/bootstrap-token-abcdef")
        [(verb, path, body)] = client.calls
        assert (verb, path) == ("delete", "/api/v1/namespaces/svc-system/secrets/bootstrap-token-abcdef")
        assert body["preconditions"] == {"uid": "u1"}

    asyncio.run(scenario())


def test_a_live_token_is_looked_at_again_when_it_expires_and_other_secrets_are_ignored() -> None:
    async def scenario() -> None:
        context, client = make_context()
        cleaner = TokenCleaner(context)
        cleaner.secrets.replace([token(context.clock.wall() + 60)])
        with pytest.raises(RequeueAfter) as later:
            await cleaner.sync("svc-system/bootstrap-token-abcdef")
        assert later.value.seconds == 60
        cleaner.secrets.replace([token(context.clock.wall() - 1, kind="Opaque")])
        await cleaner.sync("svc-system/bootstrap-token-abcdef")
        assert client.calls == []

    asyncio.run(scenario())


def test_a_token_whose_expiration_does_not_parse_counts_as_expired() -> None:
    async def scenario() -> None:
        context, client = make_context()
        cleaner = TokenCleaner(context)
        unparsable = token(0)
        unparsable["data"]["expiration"] = base64.b64encode(b"next tuesday").decode()
        cleaner.secrets.replace([unparsable])
        await cleaner.sync("svc-system/bootstrap-token-abcdef")
        assert [verb for verb, _path, _body in client.calls] == ["delete"]

    asyncio.run(scenario())
