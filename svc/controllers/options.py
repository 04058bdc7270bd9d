"""Flags of `svc-controller-manager` (spec 3 §1.1) parsed into `Options`, with upstream's defaults.

Only flags whose behaviour exists are accepted; any other flag is refused as unknown (exit 2), so a
setting is never silently ignored. Checks that need more than one flag (leader-election timing,
`--controllers` names) print every problem, one a line, and exit 1 as upstream's `Validate` does.
"""

from __future__ import annotations

import argparse
import dataclasses
import socket
import sys
import textwrap
import uuid
from dataclasses import dataclass, field
from typing import Any, NoReturn

from svc.api.brand import PROFILES
from svc.apiserver import metrics_options, tls_settings, versioning
from svc.apiserver.feature_gates import FeatureGateError, FeatureGates, parse_feature_gates
from svc.apiserver.metrics_options import MetricsOptions
from svc.controllers import catalog, delegated_auth, flags, leader_migration, log_output, nodeipam, pvrecycler
from svc.controllers.delegated_auth import DelegationOptions
from svc.controllers.leader_migration import LeaderMigrationConfig
from svc.controllers.leaderelection import JITTER
from svc.controllers.log_output import TextOutput
from svc.version import GIT_VERSION, UPSTREAM_VERSION

FLEX_VOLUME_DIRS = {
    "svc": "/usr/libexec/svc/svclet-plugins/volume/exec/",
    "kubernetes": "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
}
# Each built-in signer's own CA flags, in the svc spelling and upstream's.
SIGNING_FLAGS = {
    "apiserver-client": ("svc-apiserver-client", "kube-apiserver-client"),
    "kubelet-client": ("svclet-client", "kubelet-client"),
    "kubelet-serving": ("svclet-serving", "kubelet-serving"),
    "legacy-unknown": ("legacy-unknown",),
}


@dataclass
class Options:
    kubeconfig: str = ""
    master: str = ""
    api_qps: float = 20.0
    api_burst: int = 30
    api_content_type: str | None = None
    """None until parsed: the brand profile's Protobuf media type (empty is JSON, as client-go's default)."""
    controllers: list[str] = field(default_factory=lambda: ["*"])
    min_resync_period: float = 12 * 3600.0
    clock: str = "real"
    use_service_account_credentials: bool = False
    leader_elect: bool = True
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    resource_lock: str = "leases"
    resource_name: str = ""
    resource_namespace: str = ""
    enable_leader_migration: bool = False
    leader_migration_config: str = ""
    leader_migration: LeaderMigrationConfig | None = None
    """The migration's configuration when `--enable-leader-migration` (and `--leader-elect`)."""
    controller_shutdown_timeout: float = 10.0
    controller_start_interval: float = 0.0
    bind_address: str = "0.0.0.0"
    secure_port: int = 10257
    cert_dir: str = ""
    tls_cert_file: str = ""
    tls_private_key_file: str = ""
    tls_min_version: str = ""
    tls_sni_cert_key: list[str] = field(default_factory=list)
    tls_sni_cert_keys: list[tls_settings.SniCertKey] = field(default_factory=list)
    profiling: bool = True
    contention_profiling: bool = False
    permit_port_sharing: bool = False
    permit_address_sharing: bool = False
    tls_cipher_suites: list[str] = field(default_factory=list)
    tls_curve_preferences: list[int] = field(default_factory=list)
    disable_http2_serving: bool = False
    http2_max_streams_per_connection: int = 0
    root_ca_file: str = ""
    concurrent_serviceaccount_syncs: int = 5
    concurrent_namespace_syncs: int = 10
    concurrent_gc_syncs: int = 20
    concurrent_endpoint_syncs: int = 5
    concurrent_service_endpoint_syncs: int = 5
    max_endpoints_per_slice: int = 100
    endpoint_updates_batch_period: float = 0.0
    endpointslice_updates_batch_period: float = 0.0
    mirroring_endpointslice_updates_batch_period: float = 0.0
    concurrent_resource_quota_syncs: int = 5
    resource_quota_sync_period: float = 300.0
    concurrent_ttl_after_finished_syncs: int = 5
    concurrent_replicaset_syncs: int = 5
    concurrent_rc_syncs: int = 5
    concurrent_deployment_syncs: int = 5
    concurrent_horizontal_pod_autoscaler_syncs: int = 5
    horizontal_pod_autoscaler_sync_period: float = 15.0
    horizontal_pod_autoscaler_tolerance: float = 0.1
    horizontal_pod_autoscaler_downscale_stabilization: float = 300.0
    horizontal_pod_autoscaler_cpu_initialization_period: float = 300.0
    horizontal_pod_autoscaler_initial_readiness_delay: float = 30.0
    concurrent_job_syncs: int = 5
    concurrent_cron_job_syncs: int = 5
    concurrent_daemonset_syncs: int = 2
    concurrent_statefulset_syncs: int = 5
    concurrent_ephemeralvolume_syncs: int = 5
    concurrent_validating_admission_policy_status_syncs: int = 5
    node_monitor_period: float = 5.0
    node_monitor_grace_period: float = 50.0
    node_startup_grace_period: float = 60.0
    node_eviction_rate: float = 0.1
    secondary_node_eviction_rate: float = 0.01
    large_cluster_size_threshold: int = 50
    unhealthy_zone_threshold: float = 0.55
    cluster_signing_cert_file: str = ""
    cluster_signing_key_file: str = ""
    cluster_signing_duration: float = 8760 * 3600.0
    # signer (apiserver-client, kubelet-client, kubelet-serving, legacy-unknown) -> (cert file, key file)
    cluster_signing_pairs: dict[str, tuple[str, str]] = field(default_factory=dict)
    terminated_pod_gc_threshold: int = 12500
    enable_garbage_collector: bool = True
    namespace_sync_period: float = 300.0
    pvclaimbinder_sync_period: float = 15.0
    service_account_private_key_file: str = ""
    concurrent_serviceaccount_token_syncs: int = 5
    legacy_service_account_token_clean_up_period: float = 8760 * 3600.0
    mirroring_concurrent_service_endpoint_syncs: int = 5
    mirroring_max_endpoints_per_subset: int = 1000
    attach_detach_reconcile_sync_period: float = 60.0
    disable_attach_detach_reconcile_sync: bool = False
    disable_force_detach_on_timeout: bool = False
    concurrent_resourceclaim_syncs: int = 50
    concurrent_device_taint_eviction_syncs: int = 8
    allocate_node_cidrs: bool = False
    cluster_cidr: str = ""
    service_cluster_ip_range: str = ""
    cidr_allocator_type: str = "RangeAllocator"
    node_cidr_mask_size: int = 0
    node_cidr_mask_size_ipv4: int = 0
    node_cidr_mask_size_ipv6: int = 0
    enable_dynamic_provisioning: bool = True
    enable_hostpath_provisioner: bool = False
    flex_volume_plugin_dir: str = ""
    concurrent_service_syncs: int = 1
    pv_recycler_minimum_timeout_nfs: int = 300
    pv_recycler_increment_timeout_nfs: int = 30
    pv_recycler_pod_template_filepath_nfs: str = ""
    pv_recycler_minimum_timeout_hostpath: int = 60
    pv_recycler_timeout_increment_hostpath: int = 30
    pv_recycler_pod_template_filepath_hostpath: str = ""
    cloud_provider: str = ""
    cloud_config: str = ""
    external_cloud_volume_plugin: str = ""
    cluster_name: str = ""
    configure_cloud_routes: bool = True
    route_reconciliation_period: float = 10.0
    brand_profile: str = "svc"
    verbosity: int = 0
    vmodule: str = ""
    log_text_info_buffer_size: str = ""
    log_text_split_stream: bool = False
    text_output: TextOutput = field(default_factory=TextOutput)
    versioning: versioning.VersioningOptions = field(default_factory=versioning.VersioningOptions)
    logging_format: str = "text"
    log_flush_frequency: float = 5.0
    identity: str = ""
    enabled: list[str] = field(default_factory=list)
    feature_gates: FeatureGates = field(default_factory=FeatureGates)
    delegation: DelegationOptions = field(default_factory=DelegationOptions)
    metrics: MetricsOptions = field(default_factory=MetricsOptions)

    recycler_templates: dict[str, dict[str, Any]] = field(default_factory=dict)

    def recycler_plugins(self) -> list[pvrecycler.Plugin]:
        """The NFS and hostPath recycler plugins with their flags' timeouts and pod templates."""
        default = pvrecycler.default_template
        return [
            pvrecycler.Plugin(
                "nfs",
                self.pv_recycler_minimum_timeout_nfs,
                self.pv_recycler_increment_timeout_nfs,
                self.recycler_templates.get("nfs") or default(),
            ),
            pvrecycler.Plugin(
                "hostPath",
                self.pv_recycler_minimum_timeout_hostpath,
                self.pv_recycler_timeout_increment_hostpath,
                self.recycler_templates.get("hostPath") or default(),
            ),
        ]

    def ipam_config(self) -> nodeipam.IPAMConfig:
        """node-ipam's allocator settings; ValueError says why they cannot work."""
        return nodeipam.configure(
            cluster_cidr=self.cluster_cidr,
            service_range=self.service_cluster_ip_range,
            mask=self.node_cidr_mask_size,
            mask_v4=self.node_cidr_mask_size_ipv4,
            mask_v6=self.node_cidr_mask_size_ipv6,
            allocator=self.cidr_allocator_type,
        )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"Error: {message}\n")
        raise SystemExit(2)


class _Formatter(argparse.HelpFormatter):
    """Wraps only at spaces, so a controller name in the description is never split at a hyphen."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )


def _defaults() -> dict[str, Any]:
    return {
        item.name: item.default_factory() if item.default_factory is not dataclasses.MISSING else item.default
        for item in dataclasses.fields(Options)
    }


def build_parser() -> argparse.ArgumentParser:
    built = ", ".join(name.format(apiserver=PROFILES["svc"].apiserver_name) for name in catalog.BUILT)
    parser = _Parser(
        prog="svc-controller-manager",
        description=(
            "The controller daemon runs the control loops that keep the cluster's objects consistent. "
            f"Controllers built in this release: {built}."
        ),
        allow_abbrev=False,
        formatter_class=_Formatter,
    )
    flags.add_to(parser, _defaults())
    for signer, spellings in SIGNING_FLAGS.items():
        for part in ("cert", "key"):
            names = [f"--cluster-signing-{spelling}-{part}-file" for spelling in spellings]
            dest = f"signing_{signer.replace('-', '_')}_{part}"
            parser.add_argument(*names, dest=dest, default="", help=f"{part} of signer {signer}")
    parser.add_argument(
        "--feature-gates",
        action="append",
        default=[],
        help="Name=true|false pairs, the API server's gate set; a controller needing a gate that is off is not started",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "--emulated-version",
        action="append",
        help="version whose capabilities are emulated, [component=]major.minor "
        f"(default {versioning.text(versioning.BINARY)})",
    )
    parser.add_argument(
        "--min-compatibility-version",
        action="append",
        help="minimum compatible version, [component=]major.minor; not above the emulated version",
    )
    delegated_auth.add_arguments(parser)
    metrics_options.add_arguments(parser)
    return parser


def parse_options(argv: list[str]) -> Options:
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"svc-controller-manager {GIT_VERSION}")
        raise SystemExit(0)
    options = Options(**flags.given(args))
    options.cluster_signing_pairs = {
        signer: (
            getattr(args, f"signing_{signer.replace('-', '_')}_cert"),
            getattr(args, f"signing_{signer.replace('-', '_')}_key"),
        )
        for signer in SIGNING_FLAGS
    }
    profile = PROFILES[options.brand_profile]
    default_name = profile.apiserver_name.removesuffix("-apiserver") + "-controller-manager"
    options.resource_name = options.resource_name or default_name
    options.resource_namespace = options.resource_namespace or profile.system_namespace
    if options.api_content_type is None:
        options.api_content_type = profile.protobuf_media_type
    options.cluster_name = options.cluster_name or profile.label_domain.partition(".")[0]
    options.identity = f"{socket.gethostname()}_{uuid.uuid4()}"
    options.enabled, problems = catalog.select(options.controllers, profile.apiserver_name)
    if not options.enable_garbage_collector:
        options.enabled = [name for name in options.enabled if name != catalog.GARBAGE_COLLECTOR]
    options.flex_volume_plugin_dir = options.flex_volume_plugin_dir or FLEX_VOLUME_DIRS[options.brand_profile]
    try:
        options.versioning = versioning.from_args(
            argparse.Namespace(
                emulated_version=args.emulated_version,
                min_compatibility_version=args.min_compatibility_version,
                emulation_forward_compatible=None,
                runtime_config_emulation_forward_compatible=None,
            )
        )
    except ValueError as error:
        problems.append(str(error))
    try:
        options.feature_gates = FeatureGates(
            parse_feature_gates(args.feature_gates),
            options.versioning.emulated,
            options.versioning.min_compatibility,
        )
    except FeatureGateError as error:
        problems.append(f"invalid argument for --feature-gates: {error}")
    try:
        options.text_output = log_output.from_flags(
            verbosity=options.verbosity,
            vmodule=options.vmodule,
            split_stream=options.log_text_split_stream,
            info_buffer_size=options.log_text_info_buffer_size,
            gates=options.feature_gates,
        )
    except ValueError as error:
        problems.append(str(error))
    if options.enable_leader_migration and options.leader_elect:
        try:
            options.leader_migration = leader_migration.load(
                options.leader_migration_config, profile.group(leader_migration.GROUP)
            )
        except ValueError as error:
            problems.append(str(error))
    options.enabled = [
        name for name in options.enabled if catalog.gates_allow(name, profile.apiserver_name, options.feature_gates)
    ]
    problems += _validate(options)
    try:
        options.delegation = delegated_auth.from_args(args, options.feature_gates)
    except ValueError as error:
        problems.append(str(error))
    try:
        options.metrics = metrics_options.from_args(args, UPSTREAM_VERSION)
    except ValueError as error:
        problems.append(str(error))
    if problems:
        for problem in problems:
            sys.stderr.write(f"Error: {problem}\n")
        raise SystemExit(1)
    return options


def _signing_problems(options: Options) -> list[str]:
    """Upstream's checks of the CSR signing flags: pairs are whole, and a specific pair excludes the
    generic one."""
    problems = []
    pairs = [
        (options.cluster_signing_cert_file, options.cluster_signing_key_file),
        *options.cluster_signing_pairs.values(),
    ]
    for cert_file, key_file in pairs:
        if key_file and not cert_file:
            problems.append("cannot specify key without cert")
        elif cert_file and not key_file:
            problems.append("cannot specify cert without key")
    specific = any(cert or key for cert, key in options.cluster_signing_pairs.values())
    if specific and (options.cluster_signing_cert_file or options.cluster_signing_key_file):
        problems.append(
            "cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time"
        )
    return problems


def _tls_problems(options: Options) -> list[str]:
    """The serving TLS flags, checked as the API server checks its own."""
    problems = []
    try:
        options.tls_sni_cert_keys = [tls_settings.parse_sni_cert_key(text) for text in options.tls_sni_cert_key]
    except ValueError as error:
        problems.append(f"invalid argument for --tls-sni-cert-key: {error}")
    for check, value in (
        (tls_settings.tls_version, options.tls_min_version),
        (tls_settings.openssl_ciphers, options.tls_cipher_suites),
        (tls_settings.curve_groups, options.tls_curve_preferences),
    ):
        try:
            check(value)  # type: ignore[operator]
        except ValueError as error:
            problems.append(str(error))
    return problems


def _cloud_problems(options: Options) -> list[str]:
    """Upstream builds no cloud provider in-tree any more: none (`""`) and `external` (a separate cloud
    controller manager runs the cloud loops) are all it accepts; a provider for volumes
    (`--external-cloud-volume-plugin`) is looked up the same way and is unknown too."""
    wanted = options.external_cloud_volume_plugin if options.cloud_provider == "external" else options.cloud_provider
    if not wanted or wanted == "external":
        return []
    return [
        f'error building controller context: cloud provider could not be initialized: unknown cloud provider "{wanted}"'
    ]


def _validate(options: Options) -> list[str]:
    problems = []
    if not 0 <= options.secure_port <= 65535:
        problems.append(
            f"--secure-port {options.secure_port} must be between 0 and 65535, inclusive. 0 for turning off secure port"
        )
    if bool(options.tls_cert_file) != bool(options.tls_private_key_file):
        problems.append("--tls-cert-file and --tls-private-key-file must be given together")
    if options.http2_max_streams_per_connection < 0:
        problems.append("--http2-max-streams-per-connection can not be negative value")
    if options.api_burst < 0 or options.api_qps < 0:
        problems.append("--svc-api-qps and --svc-api-burst must not be negative")
    problems += flags.worker_problems(vars(options))
    problems += _signing_problems(options)
    problems += _cloud_problems(options)
    problems += _tls_problems(options)
    if options.logging_format != "text":
        problems.append(f'format: Invalid value: "{options.logging_format}": Unsupported log format')
    for source, what, path in (
        ("nfs", "NFS", options.pv_recycler_pod_template_filepath_nfs),
        ("hostPath", "hostpath", options.pv_recycler_pod_template_filepath_hostpath),
    ):
        if path:
            try:
                options.recycler_templates[source] = pvrecycler.load_template(path)
            except ValueError as error:
                problems.append(f'Could not create {what} recycler pod from file "{path}": {error}')
    if options.attach_detach_reconcile_sync_period < 1.0:
        problems.append(
            "duration time must be greater than one second as set via command line option reconcile-sync-loop-period"
        )
    if "storage-version-migrator-controller" in options.enabled and not options.enable_garbage_collector:
        problems.append(
            'error starting controller "storage-version-migrator-controller": '
            "storage version migrator requires garbage collector"
        )
    if "node-ipam-controller" in options.enabled and options.allocate_node_cidrs:
        try:
            options.ipam_config()
        except ValueError as error:
            problems.append(f'error starting controller "node-ipam-controller": {error}')
    if not 1 <= options.max_endpoints_per_slice <= 1000:
        problems.append("--max-endpoints-per-slice must be between 1 and 1000")
    if not 1 <= options.mirroring_max_endpoints_per_subset <= 1000:
        problems.append(
            "mirroring-max-endpoints-per-subset must be between 1 and 1000, "
            f"got {options.mirroring_max_endpoints_per_subset}"
        )
    if not options.leader_elect:
        return problems
    if options.lease_duration <= 0:
        problems.append("leaderElection.leaseDuration: Invalid value: must be greater than zero")
    if options.renew_deadline <= 0:
        problems.append("leaderElection.renewDeadline: Invalid value: must be greater than zero")
    if options.retry_period <= 0:
        problems.append("leaderElection.retryPeriod: Invalid value: must be greater than zero")
    if options.lease_duration <= options.renew_deadline:
        problems.append("leaderElection.leaseDuration: Invalid value: LeaseDuration must be greater than RenewDeadline")
    elif options.renew_deadline <= JITTER * options.retry_period:
        problems.append("renewDeadline must be greater than retryPeriod*JitterFactor")
    if options.resource_lock != "leases":
        problems.append('resourceLock value must be "leases"')
    return problems
