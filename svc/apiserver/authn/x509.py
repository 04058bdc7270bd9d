"""Client-certificate authentication: CommonName is the user, Organizations are the groups.

The TLS layer verifies the certificate against the client CA (an invalid certificate fails the
handshake), so a certificate that reaches this point is trusted. A connection's certificate never
changes, so the user is worked out once per connection, not once per request.
"""

from __future__ import annotations

import ssl
import weakref
from typing import Any

from aiohttp import web

from svc.registry.admission import UserInfo

_USERS: weakref.WeakKeyDictionary[Any, UserInfo | None] = weakref.WeakKeyDictionary()


async def authenticate(request: web.BaseRequest) -> UserInfo | None:
    transport = request.transport
    ssl_object = transport.get_extra_info("ssl_object") if transport is not None else None
    if not isinstance(ssl_object, ssl.SSLObject | ssl.SSLSocket):
        return None
    try:
        return _USERS[ssl_object]
    except KeyError:
        user = _USERS[ssl_object] = _user_of(ssl_object)
        return user


def _user_of(ssl_object: ssl.SSLObject | ssl.SSLSocket) -> UserInfo | None:
    certificate = ssl_object.getpeercert()
    if not certificate:
        return None
    common_name = ""
    organizations: list[str] = []
    for rdn in certificate.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                common_name = value
            elif key == "organizationName":
                organizations.append(value)
    if not common_name:
        return None
    return UserInfo(common_name, "", tuple(organizations))
