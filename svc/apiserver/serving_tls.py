"""The TLS context of the secure port, from the serving flags: the default certificate's context,
and one per `--tls-sni-cert-key` chosen by the name the client asks for (see `tls_settings`)."""

from __future__ import annotations

import ssl

from svc.apiserver import tls_settings
from svc.apiserver.serving_options import ServingOptions


def build_serving_context(
    cert_file: str, key_file: str, *, verify_cas: list[bytes], serving: ServingOptions
) -> ssl.SSLContext:
    """`verify_cas` (DER) are the client CAs, for where the handshake has to verify after all."""

    def context(cert: str, key: str) -> ssl.SSLContext:
        return tls_settings.server_context(
            cert,
            key,
            verify_cas=verify_cas,
            min_version=serving.tls_min_version,
            ciphers=serving.tls_cipher_suites,
            curves=serving.tls_curve_preferences,
            http2=not serving.disable_http2,
        )

    table = tls_settings.SniTable()
    pairs = [(pair, context(pair.cert_file, pair.key_file)) for pair in serving.tls_sni_cert_keys]
    for pair, sni_context in pairs:  # names given on the flag first: they beat names read from certificates
        table.add(pair.names, sni_context)
    for pair, sni_context in pairs:
        if not pair.names:
            table.add(tls_settings.certificate_names(pair.cert_file), sni_context)
    return tls_settings.with_sni(context(cert_file, key_file), table)
