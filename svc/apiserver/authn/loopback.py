"""The admin's bearer token when the generated client CA is not trusted (`--client-ca-file` given).

Upstream's API server authenticates its own loopback clients with a random token minted at start, as
a member of `system:masters`. Here the same kind of token goes into the admin kubeconfig when the
operator's `--client-ca-file` replaces the generated client CA: the admin certificate that CA signed is
no longer accepted, and the kubeconfig, rewritten at every start, stays usable.
"""

from __future__ import annotations

import hmac
import secrets

from aiohttp import web

from svc.apiserver.authn.token_file import bearer_token
from svc.registry.admission import UserInfo


class LoopbackToken:
    def __init__(self, user: str) -> None:
        self.token = secrets.token_urlsafe(32)
        self._user = UserInfo(user, "", ("system:masters",))

    async def user_for_token(self, token: str) -> UserInfo | None:
        return self._user if hmac.compare_digest(token.encode(errors="surrogatepass"), self.token.encode()) else None

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        token = bearer_token(request)
        return None if token is None else await self.user_for_token(token)
