"""The TLS flags of the secure port (`--tls-min-version`, `--tls-cipher-suites`,
`--tls-curve-preferences`, `--tls-sni-cert-key`) checked as upstream checks them and applied to an
OpenSSL context.

Upstream names cipher suites and curves as Go's `crypto/tls` does; OpenSSL spells them differently,
so each accepted Go name maps to its OpenSSL name here. Go does not let TLS 1.3 suites be chosen (they
are always on), so the TLS 1.3 names are accepted and change nothing, as in Go. Curves are Go's
numeric `CurveID`s; those OpenSSL cannot offer are refused with upstream's "not supported" error.
"""

from __future__ import annotations

import ctypes
import ssl
from dataclasses import dataclass, field

from cryptography import x509
from cryptography.x509.oid import NameOID

from svc.apiserver import request_client_cert

TLS_VERSIONS = {
    "VersionTLS10": ssl.TLSVersion.TLSv1,
    "VersionTLS11": ssl.TLSVersion.TLSv1_1,
    "VersionTLS12": ssl.TLSVersion.TLSv1_2,
    "VersionTLS13": ssl.TLSVersion.TLSv1_3,
}

# Go name -> OpenSSL name ("" for the TLS 1.3 suites, which Go and OpenSSL always enable).
SECURE_CIPHERS = {
    "TLS_AES_128_GCM_SHA256": "",
    "TLS_AES_256_GCM_SHA384": "",
    "TLS_CHACHA20_POLY1305_SHA256": "",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA": "ECDHE-ECDSA-AES128-SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": "ECDHE-ECDSA-AES128-GCM-SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA": "ECDHE-ECDSA-AES256-SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384": "ECDHE-ECDSA-AES256-GCM-SHA384",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305": "ECDHE-ECDSA-CHACHA20-POLY1305",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-ECDSA-CHACHA20-POLY1305",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA": "ECDHE-RSA-AES128-SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": "ECDHE-RSA-AES128-GCM-SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA": "ECDHE-RSA-AES256-SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384": "ECDHE-RSA-AES256-GCM-SHA384",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305": "ECDHE-RSA-CHACHA20-POLY1305",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256": "ECDHE-RSA-CHACHA20-POLY1305",
}
INSECURE_CIPHERS = {
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256": "ECDHE-ECDSA-AES128-SHA256",
    "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA": "ECDHE-ECDSA-RC4-SHA",
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA": "ECDHE-RSA-DES-CBC3-SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256": "ECDHE-RSA-AES128-SHA256",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA": "ECDHE-RSA-RC4-SHA",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA": "DES-CBC3-SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA": "AES128-SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256": "AES128-SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256": "AES128-GCM-SHA256",
    "TLS_RSA_WITH_AES_256_CBC_SHA": "AES256-SHA",
    "TLS_RSA_WITH_AES_256_GCM_SHA384": "AES256-GCM-SHA384",
    "TLS_RSA_WITH_RC4_128_SHA": "RC4-SHA",
}
# Go CurveID -> OpenSSL group name, for the curves Go knows and OpenSSL 3 offers.
CURVES = {23: "P-256", 24: "P-384", 25: "P-521", 29: "X25519"}
# Go CurveIDs OpenSSL 3.0 cannot offer (the post-quantum hybrids).
_UNOFFERED_CURVES = frozenset({4587, 4588, 4589})
_SSL_CTRL_SET_GROUPS_LIST = 92
_MAX_UINT16 = 0xFFFF


def tls_version(name: str) -> ssl.TLSVersion:
    """The minimum version a `--tls-min-version` name means; empty: upstream's default, TLS 1.2."""
    if not name:
        return ssl.TLSVersion.TLSv1_2
    if name not in TLS_VERSIONS:
        raise ValueError(f'unknown tls version "{name}"')
    return TLS_VERSIONS[name]


def openssl_ciphers(names: list[str]) -> str:
    """The OpenSSL cipher list for Go suite names; empty when only defaults (or only TLS 1.3) are named."""
    chosen: list[str] = []
    for name in names:
        openssl = SECURE_CIPHERS.get(name, INSECURE_CIPHERS.get(name))
        if openssl is None:
            raise ValueError(f"Cipher suite {name} not supported or doesn't exist")
        if openssl and openssl not in chosen:
            chosen.append(openssl)
    return ":".join(chosen)


def curve_groups(ids: list[int]) -> str:
    """The OpenSSL groups list for Go curve ids, with upstream's checks."""
    seen: set[int] = set()
    groups: list[str] = []
    for curve in ids:
        if curve <= 0 or curve > _MAX_UINT16:
            raise ValueError(f"curve preference {curve} is out of range (must be 1-{_MAX_UINT16})")
        if curve in seen:
            raise ValueError(f"duplicate curve preference {curve}")
        seen.add(curve)
        if curve not in CURVES:
            reason = "this server's TLS library" if curve in _UNOFFERED_CURVES else "the current Go version"
            raise ValueError(f"curve preference {curve} is not supported by {reason}")
        groups.append(CURVES[curve])
    return ":".join(groups)


def set_groups(context: ssl.SSLContext, groups: str) -> None:
    """`SSL_CTX_set1_groups_list` (Python's `ssl` sets one curve only), through the libssl the
    `ssl` module is linked against, located as `request_client_cert` locates it."""
    library = request_client_cert._LIBSSL
    pointer = request_client_cert._ssl_ctx_pointer(context, library) if library is not None else None
    if library is None or pointer is None:
        raise ValueError("--tls-curve-preferences: the TLS library cannot be configured from this process")
    library.SSL_CTX_ctrl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_long, ctypes.c_char_p]
    library.SSL_CTX_ctrl.restype = ctypes.c_long
    if library.SSL_CTX_ctrl(pointer, _SSL_CTRL_SET_GROUPS_LIST, 0, groups.encode()) != 1:
        raise ValueError(f"--tls-curve-preferences: the TLS library refused the groups {groups}")


@dataclass(frozen=True)
class SniCertKey:
    """One `--tls-sni-cert-key`: a pair of files and the names it serves (empty: those of the certificate)."""

    cert_file: str
    key_file: str
    names: tuple[str, ...] = ()


def parse_sni_cert_key(text: str) -> SniCertKey:
    """`cert,key[:name1,name2]`, with the errors of upstream's `NamedCertKey` flag."""
    files, _, names = text.partition(":")
    parts = [part.strip() for part in files.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ValueError("expected comma separated certificate and key file paths")
    domains = tuple(name.strip() for name in names.split(",") if name.strip()) if names else ()
    return SniCertKey(parts[0], parts[1], domains)


def certificate_names(cert_file: str) -> tuple[str, ...]:
    """The names a certificate serves when none are given: its DNS and IP SANs and its CommonName
    (upstream extracts the same), lowercased."""
    with open(cert_file, "rb") as handle:
        certificate = x509.load_pem_x509_certificates(handle.read())[0]
    names: list[str] = [
        str(attribute.value) for attribute in certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    ]
    try:
        san = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        san = None
    if san is not None:
        names += san.get_values_for_type(x509.DNSName)
        names += [str(address) for address in san.get_values_for_type(x509.IPAddress)]
    return tuple(dict.fromkeys(name.lower() for name in names if name))


@dataclass
class SniTable:
    """Server name -> context, by upstream's rule: an exact name beats a wildcard (`*.example.com`
    matches one label), and a name given on the flag beats one read from a certificate."""

    exact: dict[str, ssl.SSLContext] = field(default_factory=dict)
    wildcard: dict[str, ssl.SSLContext] = field(default_factory=dict)

    def add(self, names: tuple[str, ...], context: ssl.SSLContext) -> None:
        """Names already taken keep their context: add explicit names first, the first flag first."""
        for name in names:
            table = self.wildcard if name.startswith("*.") else self.exact
            table.setdefault(name[2:] if name.startswith("*.") else name, context)

    def lookup(self, server_name: str) -> ssl.SSLContext | None:
        name = server_name.lower().rstrip(".")
        if name in self.exact:
            return self.exact[name]
        _, dot, parent = name.partition(".")
        return self.wildcard.get(parent) if dot else None


def alpn_protocols(*, http2: bool) -> list[str]:
    """What the server offers in ALPN: HTTP/2 first, as Go's server does, unless it is disabled."""
    return ["h2", "http/1.1"] if http2 else ["http/1.1"]


def server_context(
    cert_file: str,
    key_file: str,
    *,
    verify_cas: list[bytes],
    min_version: str,
    ciphers: list[str],
    curves: list[int],
    http2: bool,
) -> ssl.SSLContext:
    """A serving context that requests a client certificate without verifying it in the handshake
    (upstream's `tls.RequestClientCert`; the x509 authenticator verifies it), with the TLS flags applied.
    `verify_cas` (DER) serve only where the handshake has to verify after all (see `request_client_cert`)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = tls_version(min_version)
    if cipher_list := openssl_ciphers(ciphers):
        context.set_ciphers(cipher_list)
    context.load_cert_chain(cert_file, key_file)
    for authority in verify_cas:
        context.load_verify_locations(cadata=authority)
    request_client_cert.request_client_certificate(context)
    if groups := curve_groups(curves):
        set_groups(context, groups)
    context.set_alpn_protocols(alpn_protocols(http2=http2))
    return context


def with_sni(default: ssl.SSLContext, table: SniTable) -> ssl.SSLContext:
    """Serve each SNI name's certificate from its own context; unnamed or unknown names get `default`."""
    if not table.exact and not table.wildcard:
        return default

    def choose(ssl_object: ssl.SSLObject, server_name: str | None, _: ssl.SSLContext) -> None:
        if server_name:
            chosen = table.lookup(server_name)
            if chosen is not None:
                ssl_object.context = chosen

    default.sni_callback = choose
    return default
