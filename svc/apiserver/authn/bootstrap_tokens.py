"""Bootstrap tokens (`--enable-bootstrap-token-auth`): `<id>.<secret>` checked against a Secret.

The Secret is `bootstrap-token-<id>` in the system namespace, of type `bootstrap.kubernetes.io/token`
(the profile's spelling), with `token-id`, `token-secret`, `usage-bootstrap-authentication: "true"`,
an optional RFC 3339 `expiration` and optional `auth-extra-groups`. The user is
`system:bootstrap:<id>` in `system:bootstrappers` and the extra groups. As upstream, a token that does
not match (no Secret, wrong secret, expired, not for authentication) is not this authenticator's:
only malformed extra groups are an error.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hmac
import re
from collections.abc import Callable

from svc.api.brand import Profile
from svc.apiserver.authn.authenticator import AuthenticationError
from svc.apiserver.authn.object_lookup import ObjectLookup
from svc.machinery import wallclock
from svc.registry.admission import UserInfo

TOKEN = re.compile(r"^([a-z0-9]{6})\.([a-z0-9]{16})$")
GROUP = re.compile(r"^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$")
BOOTSTRAPPERS = "system:bootstrappers"
USER_PREFIX = "system:bootstrap:"
SECRET_PREFIX = "bootstrap-token-"


class BootstrapTokens:
    def __init__(self, profile: Profile, objects: ObjectLookup, clock: Callable[[], float] = wallclock.now) -> None:
        self._namespace = profile.system_namespace
        self._type = profile.label("bootstrap.kubernetes.io/token")
        self._objects = objects
        self._clock = clock

    async def user_for_token(self, token: str) -> UserInfo | None:
        match = TOKEN.match(token)
        if match is None:
            return None
        token_id, token_secret = match.groups()
        found = await self._objects.identity("secrets", self._namespace, SECRET_PREFIX + token_id)
        if found is None or found.deletion_timestamp or found.obj.get("type") != self._type:
            return None
        data = found.obj.get("data") or {}
        if not hmac.compare_digest(_value(data, "token-secret").encode(), token_secret.encode()):
            return None
        if _value(data, "token-id") != token_id or self._expired(_value(data, "expiration")):
            return None
        if _value(data, "usage-bootstrap-authentication") != "true":
            return None
        return UserInfo(USER_PREFIX + token_id, "", _groups(_value(data, "auth-extra-groups")))

    def _expired(self, expiration: str) -> bool:
        if not expiration:
            return False
        try:
            moment = datetime.datetime.fromisoformat(expiration)
        except ValueError:
            return True
        if moment.tzinfo is None:
            return True
        return self._clock() > moment.timestamp()


def _value(data: dict[str, object], key: str) -> str:
    raw = data.get(key)
    if not isinstance(raw, str):
        return ""
    try:
        return base64.b64decode(raw, validate=True).decode()
    except (binascii.Error, ValueError):
        return ""


def _groups(extra: str) -> tuple[str, ...]:
    groups = [BOOTSTRAPPERS]
    for group in (item.strip() for item in extra.split(",")):
        if not group:
            continue
        if not GROUP.match(group):
            raise AuthenticationError(f'bootstrap group "{group}" is invalid (must match {GROUP.pattern})')
        groups.append(group)
    return tuple(dict.fromkeys(groups))
