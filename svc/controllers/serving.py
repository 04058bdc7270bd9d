"""The daemon's HTTPS endpoint: `/healthz`, `/readyz` and `/livez` with one check per controller,
`/metrics` (client-go's work queue, REST client and leader election metrics, and the process's) and
`/metrics/slis` (the health checks).

Upstream serves the health paths to anyone (`--authorization-always-allow-paths` defaults to them);
the others need delegated authentication and authorization (`delegated_auth`). Without
`--tls-cert-file` a self-signed pair for localhost is kept in `--cert-dir` (or only in
memory), as upstream's `MaybeDefaultWithSelfSignedCerts` does.

The port is served by the API server's HTTP layer (`svc.apiserver.serving`), so it speaks HTTP/2
when ALPN chooses `h2` (unless `--disable-http2-serving`), with `--http2-max-streams-per-connection`
concurrent streams (Go's 100 when 0, as upstream's secure serving), and keeps Go's header limits.
"""

from __future__ import annotations

import asyncio
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from prometheus_client import generate_latest

from svc.apiserver import health, profiling, tls_settings
from svc.apiserver.health import HealthCheck
from svc.apiserver.metrics import CONTENT_TYPE, CURRENT_MINOR
from svc.apiserver.metrics_exposition import Exposition
from svc.apiserver.metrics_slis import HealthcheckSlis
from svc.apiserver.pki import KeyPair, ensure_self_signed
from svc.apiserver.request_client_cert import request_client_certificate
from svc.apiserver.serving import ApiHttpServer, listen
from svc.apiserver.serving_limits import ServingLimits
from svc.apiserver.serving_options import DEFAULT_HTTP2_STREAMS
from svc.client.metrics import ClientMetrics
from svc.controllers.delegated_auth import DelegatedAuth, refusal_response
from svc.controllers.options import Options


def _self_signed(directory: Path) -> KeyPair:
    directory.mkdir(parents=True, exist_ok=True)
    pair = KeyPair(directory / "svc-controller-manager.crt", directory / "svc-controller-manager.key")
    return ensure_self_signed(pair, common_name="localhost", hosts=["localhost", "127.0.0.1"])


def _context(options: Options, cert: str | Path, key: str | Path, client_certificates: bool) -> ssl.SSLContext:
    """One serving pair with the TLS flags applied; with `client_certificates` the client is asked
    for a certificate, which the delegated authentication verifies."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    if client_certificates:
        request_client_certificate(context)
    context.minimum_version = tls_settings.tls_version(options.tls_min_version)
    if ciphers := tls_settings.openssl_ciphers(options.tls_cipher_suites):
        context.set_ciphers(ciphers)
    if groups := tls_settings.curve_groups(options.tls_curve_preferences):
        tls_settings.set_groups(context, groups)
    context.set_alpn_protocols(tls_settings.alpn_protocols(http2=not options.disable_http2_serving))
    return context


def _tls_context(options: Options, client_certificates: bool) -> ssl.SSLContext:
    """The serving context, choosing a `--tls-sni-cert-key` pair by the name the client asks for (flag
    names first, then the certificates' own, as the API server does); a pair generated without
    `--cert-dir` lives only in memory once loaded."""
    if options.tls_cert_file:
        default = _context(options, options.tls_cert_file, options.tls_private_key_file, client_certificates)
    elif options.cert_dir:
        pair = _self_signed(Path(options.cert_dir))
        default = _context(options, pair.cert, pair.key, client_certificates)
    else:
        with tempfile.TemporaryDirectory(prefix="svc-controller-manager-") as directory:
            pair = _self_signed(Path(directory))
            default = _context(options, pair.cert, pair.key, client_certificates)
    table = tls_settings.SniTable()
    pairs = [
        (pair, _context(options, pair.cert_file, pair.key_file, client_certificates))
        for pair in options.tls_sni_cert_keys
    ]
    for pair, context in pairs:
        table.add(pair.names, context)
    for pair, context in pairs:
        if not pair.names:
            table.add(tls_settings.certificate_names(pair.cert_file), context)
    return tls_settings.with_sni(default, table)


# `--profiling`: the API server's Python profiles at upstream's paths, behind the same authorization.
PROFILES = frozenset(f"{profiling.PREFIX}{name}" for name in ("", "/profile", "/goroutine", "/heap"))


def _http2_streams(options: Options) -> int:
    """Concurrent streams per HTTP/2 connection; 0 when HTTP/2 is off."""
    if options.disable_http2_serving:
        return 0
    return options.http2_max_streams_per_connection or DEFAULT_HTTP2_STREAMS


@dataclass
class Serving:
    """The listening secure port, to be closed at exit."""

    http_server: ApiHttpServer
    listener: asyncio.base_events.Server

    async def cleanup(self) -> None:
        self.listener.close()
        self.http_server.close_http2()
        await self.http_server.shutdown(1.0)
        self.http_server.abort_http2()
        await self.listener.wait_closed()


async def start_serving(
    options: Options, checks: list[HealthCheck], *, metrics: ClientMetrics, auth: DelegatedAuth
) -> Serving | None:
    """Listen on the secure port (none when it is 0); returns what to clean up."""
    if options.secure_port == 0:
        return None
    registries = {"healthz": checks, "readyz": checks, "livez": checks}
    slis = HealthcheckSlis()
    exposition = Exposition(metrics.registry, options.metrics, current_minor=CURRENT_MINOR)

    async def handle(request: web.BaseRequest) -> web.StreamResponse:
        refusal = await auth.refusal(request)
        if refusal is not None:
            return refusal_response(refusal)
        if request.method in ("GET", "HEAD"):
            answer = await health.serve(request.path, registries, request, slis.observe)
            if answer is not None:
                return answer
            if request.path == "/metrics":
                return web.Response(body=generate_latest(exposition), headers={"Content-Type": CONTENT_TYPE})
            if request.path == "/metrics/slis":
                return web.Response(body=slis.render(), headers={"Content-Type": CONTENT_TYPE})
            if options.profiling and request.path.rstrip("/") in PROFILES:
                return await profiling.serve(request.path, request)
        return web.Response(status=404, text="404 page not found\n")

    http_server = ApiHttpServer(handle, ServingLimits(), on_lost=lambda _: None, http2_streams=_http2_streams(options))
    listener, _ = await listen(
        http_server,
        options.bind_address,
        options.secure_port,
        _tls_context(options, auth.wants_client_certificates),
        # SO_REUSEADDR is always set, which --permit-address-sharing asks for
        reuse_port=options.permit_port_sharing,
    )
    return Serving(http_server, listener)
