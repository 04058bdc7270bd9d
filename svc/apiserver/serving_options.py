"""Flags of the secure port and of graceful shutdown (spec 2 §1.1, §1.2, §8), parsed into `ServingOptions`.

Values are checked as upstream's `ServerRunOptions.Validate` and `SecureServingOptions.Validate`
check them, with their messages; certificate files named by `--tls-sni-cert-key` are read here, so
a bad one stops the process at start rather than failing handshakes later.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field

from svc.apiserver import tls_settings
from svc.apiserver.tls_settings import SniCertKey
from svc.machinery.flag_types import flag_bool, flag_duration

MAX_GOAWAY_CHANCE = 0.02
DEFAULT_EVENT_TTL = 3600.0
# Streams a client may open at once on an HTTP/2 connection when the flag is 0 (upstream's explicit default).
DEFAULT_HTTP2_STREAMS = 100
CORS_HELP = (
    "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to "
    "support subdomain matching. If this list is empty CORS will not be enabled. Please ensure each expression "
    "matches the entire hostname by anchoring to the start with '^' or including the '//' prefix, and by "
    "anchoring to the end with '$' or including the ':' port separator suffix. Examples of valid expressions "
    "are '//example\\.com(:|$)' and '^https://example\\.com(:|$)'"
)
_HSTS_INVALID = (
    "--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, "
    "preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information"
)


@dataclass
class ServingOptions:
    shutdown_delay_duration: float = 0.0
    shutdown_send_retry_after: bool = False
    shutdown_watch_termination_grace_period: float = 0.0
    livez_grace_period: float = 0.0
    goaway_chance: float = 0.0
    tls_min_version: str = ""
    tls_cipher_suites: list[str] = field(default_factory=list)
    tls_curve_preferences: list[int] = field(default_factory=list)
    tls_sni_cert_keys: list[SniCertKey] = field(default_factory=list)
    disable_http2: bool = False
    http2_max_streams_per_connection: int = 0
    permit_port_sharing: bool = False
    permit_address_sharing: bool = False
    cors_allowed_origins: list[str] = field(default_factory=list)
    hsts_directives: list[str] = field(default_factory=list)
    event_ttl: float = DEFAULT_EVENT_TTL
    enable_logs_handler: bool = False
    profiling: bool = True
    debug_socket_path: str = ""

    @property
    def http2_streams(self) -> int:
        return self.http2_max_streams_per_connection or DEFAULT_HTTP2_STREAMS

    @property
    def hsts_header(self) -> str:
        return "; ".join(self.hsts_directives)


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'strconv.ParseFloat: parsing "{text}": invalid syntax') from None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'strconv.ParseInt: parsing "{text}": invalid syntax') from None


def _strings(text: str) -> list[str]:
    """A pflag string slice: comma-separated, items kept as written (empty ones too, to be refused)."""
    return [item.strip() for item in text.split(",")] if text else []


def _ints(text: str) -> list[int]:
    return [_int(item) for item in _strings(text)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--shutdown-delay-duration", type=flag_duration, help="serve this long after SIGTERM; /readyz fails at once")
    add(
        "--shutdown-send-retry-after",
        type=flag_bool,
        nargs="?",
        const=True,
        help="while in-flight requests drain, answer new ones 429 with Retry-After and Connection: close",
    )
    add("--shutdown-watch-termination-grace-period", type=flag_duration, help="longest wait for watches to end")
    add("--livez-grace-period", type=flag_duration, help="time after start during which /livez passes unfinished hooks")
    add("--goaway-chance", type=_float, help="fraction of HTTP/2 requests answered with a GOAWAY (0 to 0.02)")
    add("--tls-min-version", help="VersionTLS10, VersionTLS11, VersionTLS12 (default) or VersionTLS13")
    add("--tls-cipher-suites", type=_strings, action="append", help="Go names of the TLS 1.2 cipher suites offered")
    add("--tls-curve-preferences", type=_ints, action="append", help="Go curve ids of the key exchange groups offered")
    add(
        "--tls-sni-cert-key",
        action="append",
        help="cert,key[:name1,name2]: a certificate served to clients asking for its names (SNI); repeatable",
    )
    add("--disable-http2-serving", type=flag_bool, nargs="?", const=True, help="serve HTTP/1.1 only")
    add("--http2-max-streams-per-connection", type=_int, help="HTTP/2 streams a client may open at once (default 100)")
    add("--permit-port-sharing", type=flag_bool, nargs="?", const=True, help="bind with SO_REUSEPORT")
    add("--permit-address-sharing", type=flag_bool, nargs="?", const=True, help="bind with SO_REUSEADDR (always done)")
    add("--cors-allowed-origins", type=_strings, action="append", help=CORS_HELP)
    add(
        "--strict-transport-security-directives",
        type=_strings,
        action="append",
        help="HSTS directives, e.g. max-age=31536000,includeSubDomains,preload",
    )
    add("--enable-logs-handler", type=flag_bool, nargs="?", const=True, help="serve /var/log under /logs (deprecated)")
    add("--profiling", type=flag_bool, nargs="?", const=True, help="serve /debug/pprof/ (default true)")
    add("--debug-socket-path", help="unix socket serving the profiling endpoints without authentication")
    add("--event-ttl", type=flag_duration, help="how long Events are kept after their last write (default 1h0m0s)")


def _joined(values: list[list[str]] | None) -> list[str]:
    return [item for group in values or [] for item in group]


def _check_cors(patterns: list[str]) -> None:
    for pattern in patterns:
        if not pattern:
            raise ValueError(f"empty value in --cors-allowed-origins, help: {CORS_HELP}")
        try:
            re.compile(pattern)
        except re.error as error:
            raise ValueError(
                f"--cors-allowed-origins has an invalid regular expression: {error}, help: {CORS_HELP}"
            ) from None
        pinned = any(start in pattern for start in ("^", "//")) and any(end in pattern for end in ("$", ":"))
        if not pinned:
            raise ValueError(
                "--cors-allowed-origins has an invalid regular expression: regular expression does not pin to "
                f"start/end of host in the origin header, help: {CORS_HELP}"
            )


def _check_hsts(directives: list[str]) -> None:
    for directive in directives:
        if not directive.strip():
            raise ValueError("empty value in strict-transport-security-directives")
        if directive in ("includeSubDomains", "preload"):
            continue
        name, *rest = directive.split("=")
        if len(rest) != 1 or name != "max-age":
            raise ValueError(_HSTS_INVALID)


def from_args(args: argparse.Namespace) -> ServingOptions:
    """Options from parsed flags; raises ValueError with upstream's message on a bad value."""
    options = ServingOptions()
    for name in (
        "shutdown_delay_duration",
        "shutdown_send_retry_after",
        "shutdown_watch_termination_grace_period",
        "livez_grace_period",
        "goaway_chance",
        "tls_min_version",
        "http2_max_streams_per_connection",
        "permit_port_sharing",
        "permit_address_sharing",
        "event_ttl",
        "enable_logs_handler",
        "profiling",
        "debug_socket_path",
    ):
        value = getattr(args, name)
        if value is not None:
            setattr(options, name, value)
    if args.disable_http2_serving is not None:
        options.disable_http2 = args.disable_http2_serving
    if options.livez_grace_period < 0:
        raise ValueError("--livez-grace-period can not be a negative value")
    if not 0 <= options.goaway_chance <= MAX_GOAWAY_CHANCE:
        raise ValueError("--goaway-chance can not be less than 0 or greater than 0.02")
    if options.shutdown_delay_duration < 0:
        raise ValueError("--shutdown-delay-duration can not be negative value")
    if options.shutdown_watch_termination_grace_period < 0:
        raise ValueError("shutdown-watch-termination-grace-period, if provided, can not be a negative value")
    if options.event_ttl <= 0:
        raise ValueError("--event-ttl must be greater than 0")
    if options.http2_max_streams_per_connection < 0:
        raise ValueError("--http2-max-streams-per-connection can not be negative value")
    tls_settings.tls_version(options.tls_min_version)
    options.tls_cipher_suites = _joined(args.tls_cipher_suites)
    tls_settings.openssl_ciphers(options.tls_cipher_suites)
    options.tls_curve_preferences = [curve for group in args.tls_curve_preferences or [] for curve in group]
    tls_settings.curve_groups(options.tls_curve_preferences)
    options.tls_sni_cert_keys = [tls_settings.parse_sni_cert_key(text) for text in args.tls_sni_cert_key or []]
    for pair in options.tls_sni_cert_keys:
        try:
            tls_settings.certificate_names(pair.cert_file)
        except (OSError, ValueError) as error:
            raise ValueError(f"failed to load SNI cert and key: {error}") from None
    options.cors_allowed_origins = _joined(args.cors_allowed_origins)
    _check_cors(options.cors_allowed_origins)
    options.hsts_directives = _joined(args.strict_transport_security_directives)
    _check_hsts(options.hsts_directives)
    return options
