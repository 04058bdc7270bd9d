"""The authenticator protocol: one method that names the user of a request, or has no opinion."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Protocol, runtime_checkable

from aiohttp import web

from svc.registry.admission import UserInfo

AUTHENTICATED_GROUP = "system:authenticated"
UNAUTHENTICATED_GROUP = "system:unauthenticated"
ANONYMOUS_USER = "system:anonymous"


class AuthenticationError(Exception):
    """Credentials were presented but are not valid (answered 401)."""


@runtime_checkable
class Authenticator(Protocol):
    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        """The user, or None when this authenticator does not recognise the request."""
        ...


AuthenticatorFunc = Callable[[web.BaseRequest], Awaitable[UserInfo | None]]


class Union:
    """Tries each authenticator in order; the first to name a user wins. Credentials that one
    rejected and none accepted fail the request (401); a request without any is anonymous when that
    is allowed (for every path, or only for `anonymous_paths` as the authentication configuration's
    anonymous conditions have it), else rejected."""

    def __init__(
        self,
        authenticators: list[Authenticator | AuthenticatorFunc],
        *,
        anonymous: bool,
        anonymous_paths: Collection[str] | None = None,
    ) -> None:
        self._authenticators = [a.authenticate if isinstance(a, Authenticator) else a for a in authenticators]
        self._anonymous = anonymous
        self._anonymous_paths = frozenset(anonymous_paths) if anonymous_paths is not None else None

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        failure: AuthenticationError | None = None
        for authenticate in self._authenticators:
            try:
                user = await authenticate(request)
            except AuthenticationError as error:
                failure = failure or error
                continue
            if user is not None:
                if AUTHENTICATED_GROUP not in user.groups:
                    user = UserInfo(user.name, user.uid, (*user.groups, AUTHENTICATED_GROUP), user.extra)
                return user
        if failure is not None:
            raise failure
        if self._anonymous and (self._anonymous_paths is None or request.path in self._anonymous_paths):
            return UserInfo(ANONYMOUS_USER, "", (UNAUTHENTICATED_GROUP,))
        return None
