"""Flags of `svc-apiserver` (spec 2) parsed into `Options`.

Only flags the server implements are accepted: an unknown or malformed flag stops the process with
exit code 2 and one line naming the problem, rather than being silently ignored.
"""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from svc.api.brand import PROFILES
from svc.api.resources import parse_runtime_config
from svc.apiserver import metrics_options, serving_options, versioning
from svc.apiserver.admission import options as admission_options
from svc.apiserver.admission.options import AdmissionOptions
from svc.apiserver.aggregator import options as aggregator_options
from svc.apiserver.aggregator.options import AggregatorOptions
from svc.apiserver.audit import options as audit_options
from svc.apiserver.audit.options import AuditOptions
from svc.apiserver.authn import external_options
from svc.apiserver.authn import options as authn_options
from svc.apiserver.authn.external_options import ExternalAuthnOptions
from svc.apiserver.authn.token_file import TokenFile, TokenFileError
from svc.apiserver.authn.x509 import load_client_cas
from svc.apiserver.authz import options as authz_options
from svc.apiserver.authz.options import AuthorizationOptions
from svc.apiserver.capabilities import options as capabilities_options
from svc.apiserver.capabilities.options import CapabilitiesOptions
from svc.apiserver.clock import options as clock_options
from svc.apiserver.clock.options import ClockOptions
from svc.apiserver.encryption import options as encryption_options
from svc.apiserver.encryption.options import EncryptionOptions
from svc.apiserver.faults import options as fault_options
from svc.apiserver.faults.options import FaultOptions
from svc.apiserver.feature_gates import FeatureGateError, FeatureGates, parse_feature_gates
from svc.apiserver.flowcontrol import options as flowcontrol_options
from svc.apiserver.flowcontrol.options import FlowControlOptions
from svc.apiserver.logs import FORMATS, LogSettings, parse_vmodule
from svc.apiserver.metrics_options import MetricsOptions
from svc.apiserver.peers import options as peer_options
from svc.apiserver.peers.options import PeerOptions
from svc.apiserver.proxy import egress as egress_options
from svc.apiserver.serving_options import ServingOptions
from svc.machinery.flag_types import flag_bool, flag_duration
from svc.registry.services.ranges import (
    DEFAULT_CLUSTER_IP_RANGE,
    DEFAULT_NODE_PORT_RANGE,
    Network,
    parse_cluster_ip_range,
    parse_node_port_range,
)
from svc.storage.etcd import options as etcd_options
from svc.storage.etcd.options import EtcdOptions
from svc.version import GIT_VERSION, UPSTREAM_VERSION
from svc.wire.storage_codecs import storage_codec

STORAGE_BACKENDS = ("sqlite", "store3")
ANONYMOUS_WITH_ALWAYS_ALLOW = (
    "AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. "
    "You should use a different authorizer"
)

log = logging.getLogger(__name__)


@dataclass
class Options:
    bind_address: str = "0.0.0.0"
    secure_port: int = 6443
    advertise_address: str = ""
    external_hostname: str = ""
    data_dir: Path = Path(".svc-data")
    store_durable: bool = True
    """False only for servers a test harness runs in its own process: SQLite commits without fsync,
    as etcd's `--unsafe-no-fsync` (an OS crash may lose the last commits; the process exiting does not)."""
    cert_dir: Path | None = None
    tls_cert_file: str = ""
    tls_private_key_file: str = ""
    client_ca_file: str = ""
    token_auth_file: str = ""
    anonymous_auth: bool = True
    external_authn: ExternalAuthnOptions = field(default_factory=ExternalAuthnOptions)
    authorization: AuthorizationOptions = field(default_factory=AuthorizationOptions)
    audit: AuditOptions = field(default_factory=AuditOptions)
    metrics: MetricsOptions = field(default_factory=MetricsOptions)
    storage_backend: str = "sqlite"
    store_servers: list[str] = field(default_factory=list)
    store_prefix: str = "/registry"
    storage_media_type: str = ""  # empty: the profile's Protobuf type, the spec's default
    store_compaction_interval: float = 300.0
    etcd: EtcdOptions = field(default_factory=EtcdOptions)
    peers: PeerOptions = field(default_factory=PeerOptions)
    encryption: EncryptionOptions = field(default_factory=EncryptionOptions)
    watch_cache: bool = True
    watch_cache_sizes: dict[str, int] = field(default_factory=dict)
    min_request_timeout: int = 1800
    request_timeout: float = 60.0
    delete_collection_workers: int = 1
    enable_garbage_collector: bool = True
    enable_test_endpoints: bool = False
    runtime_config: dict[str, bool] = field(default_factory=dict)
    feature_gates: FeatureGates = field(default_factory=FeatureGates)
    brand_profile: str = "svc"
    kubeconfig_server: str = ""
    logging: LogSettings = field(default_factory=LogSettings)
    service_cluster_ip_range: tuple[Network, ...] = field(
        default_factory=lambda: parse_cluster_ip_range(DEFAULT_CLUSTER_IP_RANGE)
    )
    service_node_port_range: range = field(default_factory=lambda: parse_node_port_range(DEFAULT_NODE_PORT_RANGE))
    admission: AdmissionOptions = field(default_factory=AdmissionOptions)
    faults: FaultOptions = field(default_factory=FaultOptions)
    clock: ClockOptions = field(default_factory=ClockOptions)
    capabilities: CapabilitiesOptions = field(default_factory=CapabilitiesOptions)
    watch_from_history: bool = False
    aggregator: AggregatorOptions = field(default_factory=AggregatorOptions)
    authentication: authn_options.AuthenticationOptions = field(default_factory=authn_options.AuthenticationOptions)
    serving: ServingOptions = field(default_factory=ServingOptions)
    flowcontrol: FlowControlOptions = field(default_factory=FlowControlOptions)
    egress: egress_options.EgressOptions = field(default_factory=egress_options.EgressOptions)
    versioning: versioning.VersioningOptions = field(default_factory=versioning.VersioningOptions)

    @property
    def pki_dir(self) -> Path:
        return self.cert_dir if self.cert_dir is not None else self.data_dir / "pki"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"Error: {message}\n")
        raise SystemExit(2)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'invalid port "{text}"') from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"--secure-port {port} must be between 1 and 65535, inclusive. It cannot be turned off"
        )
    return port


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'invalid integer "{text}"') from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} must not be negative")
    return value


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _add_bool(parser: argparse.ArgumentParser, name: str, help_text: str) -> None:
    parser.add_argument(name, type=flag_bool, nargs="?", const=True, help=help_text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="svc-apiserver",
        description="The svc API server: validates and stores API objects and serves the resource API.",
        allow_abbrev=False,
    )
    add = parser.add_argument
    add(
        "--version",
        nargs="?",
        const="true",
        help="print version information and exit (--version=raw for details)",
    )
    add("--bind-address", help="address for the secure port (default 0.0.0.0)")
    add("--secure-port", type=_port, help="HTTPS port (default 6443)")
    add("--advertise-address", help="address advertised to clients; defaults to the bind address")
    add("--external-hostname", help="hostname for externalized URLs")
    add(
        "--data-dir",
        help="directory of the embedded database, certificates and admin kubeconfig (default ./.svc-data)",
    )
    add("--cert-dir", help="directory of generated certificates (default <data-dir>/pki)")
    add("--tls-cert-file", help="serving certificate (CA concatenated after); generated when absent")
    add("--tls-private-key-file", help="key of --tls-cert-file")
    add(
        "--client-ca-file",
        help="CA bundle that signs client certificates (CommonName = user, Organization = groups)",
    )
    add("--token-auth-file", help='static bearer tokens: CSV lines token,user,uid[,"group1,group2"]')
    _add_bool(
        parser,
        "--anonymous-auth",
        "serve requests not rejected by another method as system:anonymous (default true; "
        "always off with the AlwaysAllow authorizer)",
    )
    authz_options.add_arguments(parser)
    audit_options.add_arguments(parser)
    metrics_options.add_arguments(parser)
    encryption_options.add_arguments(parser)
    versioning.add_arguments(parser)
    add("--storage-backend", help="sqlite (embedded, default) or store3 (etcd, needs --store-servers)")
    add("--store-servers", type=_list, help="etcd servers, scheme://ip:port")
    add("--store-prefix", help="prefix of every key in the store (default /registry)")
    add(
        "--storage-media-type",
        help="how objects are stored: application/json, application/yaml, or the brand's Protobuf type (default)",
    )
    add(
        "--store-compaction-interval",
        type=flag_duration,
        help="interval of store compaction; 0 disables (default 5m0s)",
    )
    etcd_options.add_arguments(parser)
    peer_options.add_arguments(parser)
    _add_bool(parser, "--watch-cache", "serve lists and watches from a watch cache (default true)")
    add(
        "--watch-cache-sizes",
        type=_list,
        help="resource[.group]#size; size 0 disables the cache of that resource",
    )
    add("--min-request-timeout", type=_non_negative, help="minimum seconds a watch stays open (default 1800)")
    add("--request-timeout", type=flag_duration, help="default request timeout (default 1m0s)")
    add("--delete-collection-workers", type=_non_negative, help="workers of deletecollection (default 1)")
    _add_bool(parser, "--enable-garbage-collector", "collect objects by owner references (default true)")
    _add_bool(
        parser,
        "--enable-test-endpoints",
        "serve /testing/v1/ (snapshots, revision log, compaction, vacuum, faults) to system:masters (default false)",
    )
    add(
        "--runtime-config",
        type=_list,
        action="append",
        help="enable or disable API versions: group/version=true|false, api/all, api/ga, api/beta, api/alpha",
    )
    add("--feature-gates", action="append", help="component:Name=true|false pairs")
    add(
        "--brand-profile",
        choices=sorted(PROFILES),
        help="identifiers to serve: svc (the spec's, default) or kubernetes (upstream's, for upstream clients)",
    )
    add(
        "--kubeconfig-server",
        help="server URL to write into the admin kubeconfig (default https://<advertise address>:<port>)",
    )
    add("-v", "--v", type=_non_negative, dest="verbosity", help="log verbosity: 0 warnings, 1-3 information, 4+ debug")
    add(
        "--service-cluster-ip-range",
        help=f"CIDR (or two, one per IP family) of service cluster IPs (default {DEFAULT_CLUSTER_IP_RANGE})",
    )
    add("--service-node-port-range", help=f"N1-N2: node ports, inclusive (default {DEFAULT_NODE_PORT_RANGE})")
    external_options.add_arguments(parser)
    add("--vmodule", help="pattern=N,...: verbosity per module (file name glob)")
    add("--logging-format", help="text (default) or json")
    admission_options.add_arguments(parser)
    fault_options.add_arguments(parser)
    clock_options.add_arguments(parser)
    capabilities_options.add_arguments(parser)
    _add_bool(
        parser,
        "--watch-from-history",
        "serve a watch older than the watch cache's window from the store's revision log until compacted, "
        "instead of 410 Gone (a test-toolkit feature; default false)",
    )
    aggregator_options.add_arguments(parser)
    authn_options.add_arguments(parser)
    serving_options.add_arguments(parser)
    flowcontrol_options.add_arguments(parser)
    egress_options.add_arguments(parser)
    return parser


def _cache_sizes(entries: list[str]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for entry in entries:
        resource, sep, size = entry.partition("#")
        if not sep or not size.isdigit():
            raise ValueError(f"invalid value of --watch-cache-sizes: {entry!r}, expected resource[.group]#size")
        sizes[resource.strip().lower()] = int(size)
    return sizes


def _log_settings(args: argparse.Namespace) -> LogSettings:
    log_format = args.logging_format or "text"
    if log_format not in FORMATS:
        raise ValueError(f'format: Invalid value: "{log_format}": Unsupported log format')
    vmodule = parse_vmodule(args.vmodule) if args.vmodule else ()
    return LogSettings(verbosity=args.verbosity or 0, vmodule=vmodule, format=log_format)


def parse_options(argv: list[str]) -> Options:
    """Parse flags; prints one line and exits 2 on bad input, prints the version and exits 0 on --version."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version is not None:
        if args.version == "raw":
            print(f'version.Info{{Major:"1", Minor:"36", GitVersion:"{GIT_VERSION}"}}')
        else:
            print(f"svc-apiserver {GIT_VERSION}")
        raise SystemExit(0)
    options = Options()
    for name in (
        "bind_address",
        "secure_port",
        "advertise_address",
        "external_hostname",
        "tls_cert_file",
        "tls_private_key_file",
        "storage_media_type",
        "client_ca_file",
        "token_auth_file",
        "anonymous_auth",
        "store_prefix",
        "store_compaction_interval",
        "watch_cache",
        "min_request_timeout",
        "request_timeout",
        "delete_collection_workers",
        "enable_garbage_collector",
        "enable_test_endpoints",
        "watch_from_history",
        "brand_profile",
        "kubeconfig_server",
    ):
        value = getattr(args, name)
        if value is not None:
            setattr(options, name, value)
    if args.data_dir is not None:
        options.data_dir = Path(args.data_dir)
    if args.cert_dir is not None:
        options.cert_dir = Path(args.cert_dir)
    if args.store_servers:
        options.store_servers = args.store_servers
        options.storage_backend = "store3"
    if args.storage_backend is not None:
        options.storage_backend = args.storage_backend
    try:
        if options.storage_backend not in STORAGE_BACKENDS:
            raise ValueError(f'invalid --storage-backend "{options.storage_backend}": supported values: sqlite, store3')
        if options.storage_backend == "store3" and not options.store_servers:
            raise ValueError("--store-servers must be specified")
        options.etcd = etcd_options.from_args(args)
        options.peers = peer_options.from_args(args)
        options.authorization = authz_options.from_args(args, PROFILES[options.brand_profile])
        storage_codec(options.storage_media_type, PROFILES[options.brand_profile])
        if options.token_auth_file:
            TokenFile(options.token_auth_file)
        if options.client_ca_file:
            load_client_cas(options.client_ca_file)
        options.external_authn = external_options.from_args(args)
        if bool(options.tls_cert_file) != bool(options.tls_private_key_file):
            raise ValueError("--tls-cert-file and --tls-private-key-file must be given together")
        if args.watch_cache_sizes:
            options.watch_cache_sizes = _cache_sizes(args.watch_cache_sizes)
        if args.runtime_config:
            options.runtime_config = parse_runtime_config(item for group in args.runtime_config for item in group)
        options.versioning = versioning.from_args(args)
        options.feature_gates = FeatureGates(
            parse_feature_gates(args.feature_gates or []),
            options.versioning.emulated,
            options.versioning.min_compatibility,
        )
        options.logging = _log_settings(args)
        options.authentication = authn_options.from_args(args, tls_private_key_file=options.tls_private_key_file)
        if args.service_cluster_ip_range is not None:
            options.service_cluster_ip_range = parse_cluster_ip_range(args.service_cluster_ip_range)
        if args.service_node_port_range is not None:
            options.service_node_port_range = parse_node_port_range(args.service_node_port_range)
        options.admission = admission_options.from_args(args)
        options.audit = audit_options.from_args(args)
        options.metrics = metrics_options.from_args(args, UPSTREAM_VERSION)
        options.faults = fault_options.from_args(args)
        options.clock = clock_options.from_args(args, test_endpoints=options.enable_test_endpoints)
        options.capabilities = capabilities_options.from_args(args)
        options.serving = serving_options.from_args(args)
        options.encryption = encryption_options.from_args(args, PROFILES[options.brand_profile])
        options.flowcontrol = flowcontrol_options.from_args(args)
        options.aggregator = aggregator_options.from_args(args)
        options.egress = egress_options.from_args(args)
    except (ValueError, FeatureGateError, TokenFileError) as error:
        parser.error(str(error))
    _apply_authorization(options)
    return options


def _apply_authorization(options: Options) -> None:
    """Anonymous requests under AlwaysAllow would let anyone who reaches the port do anything, so
    anonymous authentication is turned off there, with a warning (as upstream does, even when
    `--anonymous-auth=true` is given explicitly)."""
    if options.anonymous_auth and "AlwaysAllow" in options.authorization.modes:
        log.warning(ANONYMOUS_WITH_ALWAYS_ALLOW)
        options.anonymous_auth = False
