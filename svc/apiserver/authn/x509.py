"""Client-certificate authentication: CommonName is the user, Organizations are the groups.

The TLS layer requests a certificate without verifying it (see `request_client_cert`), so this
authenticator verifies it as upstream's does: it chains to a client CA (issuers must be CAs), it is
valid now, and its extended key usage, and that of every certificate above it, allows client
authentication (a certificate without the extension allows any use). A certificate that fails gets
a 401. Intermediates the client sends are used to build the chain, as upstream. A connection's certificate
never changes, so it is verified once per connection; later requests only check that it has not
expired since.
"""

from __future__ import annotations

import _ssl
import datetime
import math
import ssl
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography import x509
from cryptography.x509 import verification
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from svc.apiserver.authn.authenticator import AuthenticationError
from svc.registry.admission import UserInfo

UID_OID = x509.ObjectIdentifier("1.3.6.1.4.1.57683.2")


class ClientCAError(ValueError):
    pass


def load_client_cas(path: str | Path) -> list[x509.Certificate]:
    """The certificates of a PEM bundle (`--client-ca-file`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ClientCAError(f'unable to load client CA file "{path}": {error.strerror}') from None
    try:
        certificates = x509.load_pem_x509_certificates(data)
    except ValueError:
        certificates = []
    if not certificates:
        raise ClientCAError(
            f'unable to load client CA file "{path}": data does not contain any valid RSA or ECDSA certificates'
        )
    return certificates


def _allows_client_auth(policy: Any, certificate: x509.Certificate, usage: x509.ExtendedKeyUsage | None) -> None:
    if usage is None:
        return
    if ExtendedKeyUsageOID.CLIENT_AUTH not in usage and ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE not in usage:
        raise ValueError("certificate specifies an incompatible key usage")


_ANY = verification.Criticality.AGNOSTIC
_CA_POLICY = (
    verification.ExtensionPolicy.permit_all()
    .require_present(x509.BasicConstraints, _ANY, None)
    .may_be_present(x509.ExtendedKeyUsage, _ANY, _allows_client_auth)
)
_LEAF_POLICY = verification.ExtensionPolicy.permit_all().may_be_present(
    x509.ExtendedKeyUsage, _ANY, _allows_client_auth
)


_clock = time.time
"""Seconds since the epoch; a float comparison keeps the per-request expiry check cheap."""


@dataclass(frozen=True)
class _Verified:
    user: UserInfo | None
    not_after: float


class ClientCertificates:
    """The authenticator over the client CAs: the generated one and those of `--client-ca-file`."""

    def __init__(self, authorities: Iterable[x509.Certificate], *, parse_uid: bool = True) -> None:
        self._store = verification.Store(list(authorities))
        self._parse_uid = parse_uid
        # The verdict per connection: a verified certificate, or why it failed (a fresh exception
        # is raised each time; re-raising one instance would grow its traceback).
        self._connections: weakref.WeakKeyDictionary[Any, _Verified | str] = weakref.WeakKeyDictionary()

    async def authenticate(self, request: web.BaseRequest) -> UserInfo | None:
        transport = request.transport
        ssl_object = transport.get_extra_info("ssl_object") if transport is not None else None
        if not isinstance(ssl_object, ssl.SSLObject | ssl.SSLSocket):
            return None
        result = self._connections.get(ssl_object)
        if result is None:
            result = self._connections[ssl_object] = self._verify(_peer_chain(ssl_object))
        if isinstance(result, str):
            raise AuthenticationError(result)
        if _clock() > result.not_after:
            raise AuthenticationError("x509: certificate has expired")
        return result.user

    def _verify(self, chain: list[bytes]) -> _Verified | str:
        if not chain:
            return _Verified(None, math.inf)
        try:
            certificate, *intermediates = (x509.load_der_x509_certificate(der) for der in chain)
            verifier = (
                verification.PolicyBuilder()
                .store(self._store)
                .time(datetime.datetime.fromtimestamp(_clock(), datetime.UTC))
                .extension_policies(ca_policy=_CA_POLICY, ee_policy=_LEAF_POLICY)
                .build_client_verifier()
            )
            verifier.verify(certificate, intermediates)
        except (ValueError, verification.VerificationError) as error:
            return f"verifying client certificate failed: {error}"
        try:
            user = _user_of(certificate, parse_uid=self._parse_uid)
        except ValueError as error:
            return str(error)
        return _Verified(user, certificate.not_valid_after_utc.timestamp())


def _peer_chain(ssl_object: ssl.SSLObject | ssl.SSLSocket) -> list[bytes]:
    """The client's certificate, then the intermediates it sent, as DER. Python 3.13 publishes this
    as `get_unverified_chain()`; 3.11 and 3.12 have the same method on the private `_sslobj`."""
    chain = ssl_object._sslobj.get_unverified_chain() or ()  # type: ignore[union-attr]
    # Without a client certificate CPython may list None where the certificate would be.
    return [certificate.public_bytes(_ssl.ENCODING_DER) for certificate in chain if certificate is not None]


def _user_of(certificate: x509.Certificate, *, parse_uid: bool) -> UserInfo | None:
    common_names = certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if not common_names or not common_names[-1].value:
        return None
    organizations = certificate.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)
    uid = _uid_of(certificate) if parse_uid else ""
    return UserInfo(str(common_names[-1].value), uid, tuple(str(org.value) for org in organizations))


def _uid_of(certificate: x509.Certificate) -> str:
    """The subject's UID attribute (`AllowParsingUserUIDFromCertAuth`): at most one, and not empty."""
    uids = certificate.subject.get_attributes_for_oid(UID_OID)
    if len(uids) > 1:
        raise ValueError(f"expected 1 UID, but found multiple: {[str(uid.value) for uid in uids]}")
    if uids and not str(uids[0].value):
        raise ValueError("UID cannot be an empty string")
    return str(uids[0].value) if uids else ""
