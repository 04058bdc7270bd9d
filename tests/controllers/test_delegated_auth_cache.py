"""The delegated authorization cache: allowed decisions and refusals are remembered for their own
TTLs (`--authorization-webhook-cache-authorized-ttl`, `-unauthorized-ttl`), as upstream's webhook cache."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp.test_utils import make_mocked_request

from svc.api.brand import PROFILES
from svc.controllers.delegated_auth import DelegatedAuth, DelegationOptions
from svc.controllers.options import parse_options


class Reviews:
    """Answers SubjectAccessReviews: /metrics is allowed, anything else refused; counts the asks."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        asked = body["spec"]["nonResourceAttributes"]["path"]
        self.asked.append(asked)
        return {"status": {"allowed": asked == "/metrics"}}


def test_allowed_and_refused_decisions_use_their_own_ttls() -> None:
    async def scenario() -> None:
        options = DelegationOptions(authorized_ttl=60.0, unauthorized_ttl=0.0)
        auth = DelegatedAuth(options, PROFILES["svc"], "test")
        reviews = Reviews()
        auth._authz = reviews  # type: ignore[assignment]
        for path in ("/metrics", "/metrics", "/debug/pprof/", "/debug/pprof/"):
            await auth.refusal(make_mocked_request("GET", path))
        assert reviews.asked == ["/metrics", "/debug/pprof/", "/debug/pprof/"]

    asyncio.run(scenario())


def test_the_ttl_flags_and_the_svc_spelling_of_the_kubeconfig_flags() -> None:
    delegation = parse_options(
        [
            "--authentication-svcconfig=/a",
            "--authorization-svcconfig=/b",
            "--authentication-token-webhook-cache-ttl=1m",
            "--authorization-webhook-cache-authorized-ttl=30s",
            "--authorization-webhook-cache-unauthorized-ttl=0s",
        ]
    ).delegation
    assert (delegation.authentication_kubeconfig, delegation.authorization_kubeconfig) == ("/a", "/b")
    assert (delegation.token_cache_ttl, delegation.authorized_ttl, delegation.unauthorized_ttl) == (60.0, 30.0, 0.0)
    assert parse_options([]).delegation.authorized_ttl == 10.0
