"""Client-certificate authentication: CommonName is the user, Organizations are the groups.

The TLS layer verifies the certificate against the client CA (an invalid certificate fails the
handshake), so a certificate that reaches this point is trusted.
"""

from __future__ import annotations

import ssl

from aiohttp import web

from svc.registry.admission import UserInfo


async def authenticate(request: web.BaseRequest) -> UserInfo | None:
    transport = request.transport
    ssl_object = transport.get_extra_info("ssl_object") if transport is not None else None
    if not isinstance(ssl_object, ssl.SSLObject | ssl.SSLSocket):
        return None
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
