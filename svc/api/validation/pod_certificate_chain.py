"""The certificate chain a signer issues for a PodCertificateRequest, as upstream's
`pkg/apis/certificates/validation`.

Checked when `/status` first says Issued: the chain must start with a certificate for the requested
key whose validity matches `notBefore`/`notAfter`, began within five minutes of the server's clock,
lasts between an hour and `spec.maxExpirationSeconds`, with `beginRefreshAt` ten minutes inside it;
every block is a parseable certificate. Upstream stops at the first timing problem, so this does too.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime
from email.utils import parseaddr
from typing import Any, Final

from cryptography import x509

from svc.api.validation.engine import integer
from svc.api.validation.pod_certificate_keys import requested_key
from svc.machinery import wallclock
from svc.machinery.duration import format_duration
from svc.machinery.field_errors import FieldError, Rendered, invalid, required, too_long

Obj = dict[str, Any]
MAX_CHAIN_SIZE: Final = 100 * 1024
SKEW_SECONDS: Final = 300
REFRESH_MARGIN: Final = 600
_CHAIN: Final = "status.certificateChain"
_REFRESH: Final = "status.beginRefreshAt"
_PEM: Final = re.compile(rb"-----BEGIN ([^-\r\n]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL)


def go_time(moment: datetime) -> Rendered:
    """A time as Go's `Time.String()` prints it in UTC."""
    return Rendered(moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S +0000 UTC"))


def _parse_time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def _blocks(chain: str) -> list[tuple[bytes, bytes]]:
    return [(kind, body) for kind, body in _PEM.findall(chain.encode())]


def _der(body: bytes) -> bytes:
    return base64.b64decode(b"".join(body.split()))


def _leaf_name_errors(leaf: x509.Certificate) -> list[FieldError]:
    try:
        names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    errors: list[FieldError] = []
    for name in names.get_values_for_type(x509.DNSName):
        if name == "":
            errors.append(invalid(_CHAIN, name, "leaf certificate should not contain empty DNSName"))
        if ".." in name:
            errors.append(invalid(_CHAIN, name, "leaf certificate's DNSName should not contain '..'"))
        if name.startswith(".") or name.endswith("."):
            errors.append(invalid(_CHAIN, name, "leaf certificate's DNSName should not start or end with '.'"))
    for address in names.get_values_for_type(x509.RFC822Name):
        if "@" not in parseaddr(address)[1]:
            errors.append(invalid(_CHAIN, address, "leaf certificate should not contain invalid EmailAddress"))
    return errors


def issued_errors(new: Obj, old: Obj) -> list[FieldError]:
    """The checks of a status that says Issued (`old` holds the stored spec and its key)."""
    status = new.get("status") or {}
    chain = status.get("certificateChain") if isinstance(status.get("certificateChain"), str) else ""
    if len(chain.encode()) > MAX_CHAIN_SIZE:
        return [too_long(_CHAIN, MAX_CHAIN_SIZE)]
    blocks = _blocks(chain)
    if not blocks:
        return [invalid(_CHAIN, chain, "issued certificate chain must contain at least one certificate")]
    if blocks[0][0] != b"CERTIFICATE":
        return [invalid(_CHAIN, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")]
    try:
        leaf = x509.load_der_x509_certificate(_der(blocks[0][1]))
    except (ValueError, binascii.Error):
        return [invalid(_CHAIN, chain, "leaf certificate does not parse as valid X.509")]
    errors = _leaf_name_errors(leaf)
    wanted, unreadable = requested_key(old)
    if unreadable:
        return errors + unreadable
    if wanted != leaf.public_key():
        return [*errors, invalid(_CHAIN, chain, "leaf certificate was not issued to the requested public key")]
    stamps = {name: _parse_time(status.get(name)) for name in ("notBefore", "notAfter", "beginRefreshAt")}
    if stamps["notBefore"] is None:
        errors.append(required("status.notBefore", "must be present and consistent with the issued certificate"))
    if stamps["notAfter"] is None:
        errors.append(required("status.notAfter", "must be present and consistent with the issued certificate"))
    if stamps["beginRefreshAt"] is None:
        detail = "must be present and in the range [notbefore+10min, notafter-10min]"
        errors.append(required(_REFRESH, detail))
    if errors:
        return errors
    return _timing_errors(new, leaf, chain, blocks)


def _timing_errors(new: Obj, leaf: x509.Certificate, chain: str, blocks: list[tuple[bytes, bytes]]) -> list[FieldError]:
    status = new["status"]
    not_before, not_after = _parse_time(status["notBefore"]), _parse_time(status["notAfter"])
    refresh = _parse_time(status["beginRefreshAt"])
    assert not_before is not None and not_after is not None and refresh is not None
    if not_before != leaf.not_valid_before_utc:
        detail = "must be set to the NotBefore time encoded in the leaf certificate"
        return [invalid("status.notBefore", go_time(not_before), detail)]
    if abs(not_before.timestamp() - wallclock.now()) >= SKEW_SECONDS:
        detail = "must be set to within 5 minutes of kube-apiserver's current time"
        return [invalid("status.notBefore", go_time(not_before), detail)]
    if not_after != leaf.not_valid_after_utc:
        detail = "must be set to the NotAfter time encoded in the leaf certificate"
        return [invalid("status.notAfter", go_time(not_after), detail)]
    lifetime = (leaf.not_valid_after_utc - leaf.not_valid_before_utc).total_seconds()
    if lifetime < 3600:
        return [invalid(_CHAIN, Rendered(format_duration(lifetime)), "leaf certificate lifetime must be >= 1 hour")]
    cap = integer(new, "spec.maxExpirationSeconds") or 0
    if lifetime > cap:
        detail = f"leaf certificate lifetime must be <= spec.maxExpirationSeconds ({cap})"
        return [invalid(_CHAIN, Rendered(format_duration(lifetime)), detail)]
    if refresh.timestamp() < not_before.timestamp() + REFRESH_MARGIN:
        return [invalid(_REFRESH, go_time(refresh), "must be at least 10 minutes after status.notBefore")]
    if refresh.timestamp() > not_after.timestamp() - REFRESH_MARGIN:
        return [invalid(_REFRESH, go_time(refresh), "must be at least 10 minutes before status.notAfter")]
    for kind, body in blocks[1:]:
        if kind != b"CERTIFICATE":
            # upstream's text spells it so
            return [invalid(_CHAIN, chain, "issued certificate chain must consist entirely of CERTFICATE PEM blocks")]
        try:
            x509.load_der_x509_certificate(_der(body))
        except (ValueError, binascii.Error):
            return [invalid(_CHAIN, chain, "intermediate certificate does not parse as valid X.509")]
    return []
