"""Static bearer tokens (`--token-auth-file`): CSV lines `token,user,uid[,"group1,group2,..."]`."""

from __future__ import annotations

import csv
from pathlib import Path

from aiohttp import web

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.registry.admission import UserInfo


class TokenFileError(ValueError):
    pass


def bearer_token(request: web.BaseRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class TokenFile:
    def __init__(self, path: str) -> None:
        self.users: dict[str, UserInfo] = {}
        try:
            with Path(path).open(newline="") as handle:
                rows = list(csv.reader(handle))
        except OSError as error:
            raise TokenFileError(f"failed to read token file {path}: {error.strerror}") from None
        for number, row in enumerate(rows, start=1):
            if not row or row[0].startswith("#"):
                continue
            if len(row) < 3:
                raise TokenFileError(f"token file {path}, line {number}: need at least 3 columns, found {len(row)}")
            groups = tuple(group.strip() for group in row[3].split(",") if group.strip()) if len(row) > 3 else ()
            self.users[row[0]] = UserInfo(row[1], row[2], groups)

    async def user_for_token(self, token: str) -> UserInfo | None:
        return self.users.get(token)

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        token = bearer_token(request)
        if token is None:
            return None
        user = self.users.get(token)
        if user is None:
            raise AuthenticationError("invalid bearer token")
        return user
