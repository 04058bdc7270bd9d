"""What the built-in certificate signers accept and how they sign, free of I/O.

Upstream `pkg/apis/certificates/helpers.go` and `pkg/controller/certificates/signer`: the signer names
(profile-spelled), the usage and subject rules of the kubelet client and serving signers and of the API
server client signer, a CSR's approval state, and the certificate a CA issues for it.
"""

from __future__ import annotations

import base64
import datetime
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, ObjectIdentifier

from svc.api.brand import Profile

Obj = dict[str, Any]

BACKDATE = 5 * 60.0
SHORT = 8 * 3600.0
NODES_GROUP = "system:nodes"
NODE_PREFIX = "system:node:"

_KEY_USAGES = {
    "signing": "digital_signature",
    "digital signature": "digital_signature",
    "content commitment": "content_commitment",
    "key encipherment": "key_encipherment",
    "key agreement": "key_agreement",
    "data encipherment": "data_encipherment",
    "cert sign": "key_cert_sign",
    "crl sign": "crl_sign",
    "encipher only": "encipher_only",
    "decipher only": "decipher_only",
}
_EXT_USAGES = {
    "any": ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE,
    "server auth": ExtendedKeyUsageOID.SERVER_AUTH,
    "client auth": ExtendedKeyUsageOID.CLIENT_AUTH,
    "code signing": ExtendedKeyUsageOID.CODE_SIGNING,
    "email protection": ExtendedKeyUsageOID.EMAIL_PROTECTION,
    "s/mime": ExtendedKeyUsageOID.EMAIL_PROTECTION,
    "ipsec end system": ObjectIdentifier("1.3.6.1.5.5.7.3.5"),
    "ipsec tunnel": ObjectIdentifier("1.3.6.1.5.5.7.3.6"),
    "ipsec user": ObjectIdentifier("1.3.6.1.5.5.7.3.7"),
    "timestamping": ExtendedKeyUsageOID.TIME_STAMPING,
    "ocsp signing": ExtendedKeyUsageOID.OCSP_SIGNING,
    "microsoft sgc": ObjectIdentifier("1.3.6.1.4.1.311.10.3.3"),
    "netscape sgc": ObjectIdentifier("2.16.840.1.113730.4.1"),
}
_CLIENT_USAGES = ({"digital signature", "key encipherment", "client auth"}, {"digital signature", "client auth"})
_SERVING_USAGES = ({"digital signature", "key encipherment", "server auth"}, {"digital signature", "server auth"})


@dataclass(frozen=True)
class SignerNames:
    """The built-in signers in a profile's spelling (`kubernetes.io/kubelet-serving`, `svc.io/svclet-serving`)."""

    apiserver_client: str
    kubelet_client: str
    kubelet_serving: str
    legacy_unknown: str

    @classmethod
    def of(cls, profile: Profile) -> SignerNames:
        prefix = profile.apiserver_name.removesuffix("-apiserver")
        domain, agent = profile.label_domain, f"{prefix}let"
        return cls(
            apiserver_client=f"{domain}/{prefix}-apiserver-client",
            kubelet_client=f"{domain}/{prefix}-apiserver-client-{agent}",
            kubelet_serving=f"{domain}/{agent}-serving",
            legacy_unknown=f"{domain}/legacy-unknown",
        )


def parse_request(csr: Obj) -> x509.CertificateSigningRequest:
    pem = base64.b64decode((csr.get("spec") or {}).get("request") or "")
    return x509.load_pem_x509_csr(pem)


def _names(request: x509.CertificateSigningRequest) -> dict[str, list[Any]]:
    try:
        san = request.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return {"dns": [], "ip": [], "email": [], "uri": []}
    return {
        "dns": san.get_values_for_type(x509.DNSName),
        "ip": san.get_values_for_type(x509.IPAddress),
        "email": san.get_values_for_type(x509.RFC822Name),
        "uri": san.get_values_for_type(x509.UniformResourceIdentifier),
    }


def _subject(request: x509.CertificateSigningRequest, oid: ObjectIdentifier) -> list[str]:
    return [str(attribute.value) for attribute in request.subject.get_attributes_for_oid(oid)]


def common_name(request: x509.CertificateSigningRequest) -> str:
    names = _subject(request, x509.NameOID.COMMON_NAME)
    return names[0] if names else ""


def _usage_mismatch(wanted: tuple[set[str], set[str]]) -> str:
    return f"usages did not match [{' '.join(sorted(wanted[0]))}]"


def kubelet_client_error(request: x509.CertificateSigningRequest, usages: set[str]) -> str | None:
    """Upstream's `ValidateKubeletClientCSR`."""
    names = _names(request)
    if _subject(request, x509.NameOID.ORGANIZATION_NAME) != [NODES_GROUP]:
        return f"subject organization is not {NODES_GROUP}"
    for kind, label in (("dns", "DNS"), ("email", "Email"), ("ip", "IP"), ("uri", "URI")):
        if names[kind]:
            return f"{label} subjectAltNames are not allowed"
    if not common_name(request).startswith(NODE_PREFIX):
        return f"subject common name does not begin with {NODE_PREFIX}"
    if usages not in _CLIENT_USAGES:
        return _usage_mismatch(_CLIENT_USAGES)
    return None


def kubelet_serving_error(request: x509.CertificateSigningRequest, usages: set[str]) -> str | None:
    """Upstream's `ValidateKubeletServingCSR`."""
    names = _names(request)
    if _subject(request, x509.NameOID.ORGANIZATION_NAME) != [NODES_GROUP]:
        return f"subject organization is not {NODES_GROUP}"
    if not names["dns"] and not names["ip"]:
        return "DNS or IP subjectAltName is required"
    if names["email"]:
        return "Email subjectAltNames are not allowed"
    if names["uri"]:
        return "URI subjectAltNames are not allowed"
    if usages not in _SERVING_USAGES:
        return _usage_mismatch(_SERVING_USAGES)
    if not common_name(request).startswith(NODE_PREFIX):
        return f"subject common name does not begin with {NODE_PREFIX}"
    return None


def apiserver_client_error(usages: list[str]) -> str | None:
    has_client_auth = False
    for usage in usages:
        if usage == "client auth":
            has_client_auth = True
        elif usage not in ("digital signature", "key encipherment"):
            return f"invalid usage for client certificate: {usage}"
    return None if has_client_auth else "missing required usage for client certificate: client auth"


def signer_error(signers: SignerNames, csr: Obj, request: x509.CertificateSigningRequest) -> str | None:
    """Why the signer named in the CSR refuses it, or None."""
    spec = csr.get("spec") or {}
    usages = list(spec.get("usages") or [])
    name = spec.get("signerName")
    if name == signers.kubelet_serving:
        return kubelet_serving_error(request, set(usages))
    if name == signers.kubelet_client:
        return kubelet_client_error(request, set(usages))
    if name == signers.apiserver_client:
        return apiserver_client_error(usages)
    return None


def condition(csr: Obj, kind: str) -> Obj | None:
    return next(
        (
            c
            for c in (csr.get("status") or {}).get("conditions") or []
            if c.get("type") == kind and c.get("status") == "True"
        ),
        None,
    )


def duration(max_ttl: float, expiration_seconds: int | None) -> float:
    """The certificate lifetime: the signer's maximum, or shorter on request, never under ten minutes."""
    if expiration_seconds is None:
        return max_ttl
    return min(max_ttl, max(2 * BACKDATE, float(expiration_seconds)))


@dataclass(frozen=True)
class CertificateAuthority:
    certificate: x509.Certificate
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey

    @classmethod
    def load(cls, cert_file: str, key_file: str) -> CertificateAuthority:
        with open(cert_file, "rb") as cert_in, open(key_file, "rb") as key_in:
            certificate = x509.load_pem_x509_certificate(cert_in.read())
            key = serialization.load_pem_private_key(key_in.read(), password=None)
        if not isinstance(key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
            raise ValueError(f"{key_file}: the signing key must be RSA or ECDSA")
        return cls(certificate, key)

    def sign(self, request: x509.CertificateSigningRequest, usages: list[str], ttl: float, now: float) -> bytes:
        """A PEM certificate for the request: upstream's permissive policy (backdated five minutes, the
        lifetime shortened by the backdate unless under eight hours, never past the CA's own end)."""
        ca_end = self.certificate.not_valid_after_utc
        moment = datetime.datetime.fromtimestamp(now, datetime.UTC)
        if moment >= ca_end:
            raise ValueError(f"refusing to sign a certificate that expired in the past: NotAfter={ca_end}")
        not_before = moment - datetime.timedelta(seconds=BACKDATE)
        not_after = moment + datetime.timedelta(seconds=ttl if ttl < SHORT else ttl - BACKDATE)
        builder = (
            x509.CertificateBuilder()
            .subject_name(request.subject)
            .issuer_name(self.certificate.subject)
            .public_key(request.public_key())
            .serial_number(secrets.randbits(127) + 1)
            .not_valid_before(not_before)
            .not_valid_after(min(not_after, ca_end))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        )
        flags = {value: False for value in set(_KEY_USAGES.values())}
        flags.update({_KEY_USAGES[u]: True for u in usages if u in _KEY_USAGES})
        if any(flags.values()):
            builder = builder.add_extension(x509.KeyUsage(**flags), critical=True)
        extended = list(dict.fromkeys(_EXT_USAGES[u] for u in usages if u in _EXT_USAGES))
        if extended:
            builder = builder.add_extension(x509.ExtendedKeyUsage(extended), critical=False)
        try:
            san = request.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            builder = builder.add_extension(san, critical=False)
        except x509.ExtensionNotFound:
            pass
        try:
            ski = self.certificate.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
            builder = builder.add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False
            )
        except x509.ExtensionNotFound:
            pass
        return builder.sign(self.key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
