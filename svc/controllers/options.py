"""Flags of `svc-controller-manager` (spec 3 §1.1) parsed into `Options`, with upstream's defaults.

Only flags whose behaviour exists are accepted; any other flag is refused as unknown (exit 2), so a
setting is never silently ignored. Checks that need more than one flag (leader-election timing,
`--controllers` names) print every problem, one a line, and exit 1 as upstream's `Validate` does.
"""

from __future__ import annotations

import argparse
import socket
import sys
import textwrap
import uuid
from dataclasses import dataclass, field
from typing import NoReturn

from svc.api.brand import PROFILES
from svc.apiserver import metrics_options
from svc.apiserver.feature_gates import FeatureGateError, FeatureGates, parse_feature_gates
from svc.apiserver.metrics_options import MetricsOptions
from svc.controllers import catalog, delegated_auth, nodeipam
from svc.controllers.delegated_auth import DelegationOptions
from svc.controllers.leaderelection import JITTER
from svc.machinery.duration import parse_duration
from svc.machinery.gotext import parse_bool

UPSTREAM_VERSION = "v1.36.0"
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
    controller_shutdown_timeout: float = 10.0
    bind_address: str = "0.0.0.0"
    secure_port: int = 10257
    cert_dir: str = ""
    tls_cert_file: str = ""
    tls_private_key_file: str = ""
    root_ca_file: str = ""
    concurrent_serviceaccount_syncs: int = 5
    concurrent_namespace_syncs: int = 10
    concurrent_gc_syncs: int = 20
    concurrent_endpoint_syncs: int = 5
    concurrent_service_endpoint_syncs: int = 5
    max_endpoints_per_slice: int = 100
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
    allocate_node_cidrs: bool = False
    cluster_cidr: str = ""
    service_cluster_ip_range: str = ""
    cidr_allocator_type: str = "RangeAllocator"
    node_cidr_mask_size: int = 0
    node_cidr_mask_size_ipv4: int = 0
    node_cidr_mask_size_ipv6: int = 0
    enable_dynamic_provisioning: bool = True
    brand_profile: str = "svc"
    verbosity: int = 0
    identity: str = ""
    enabled: list[str] = field(default_factory=list)
    feature_gates: FeatureGates = field(default_factory=FeatureGates)
    delegation: DelegationOptions = field(default_factory=DelegationOptions)
    metrics: MetricsOptions = field(default_factory=MetricsOptions)

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


def _typed(parse, what: str):  # type: ignore[no-untyped-def]
    def convert(text: str):  # type: ignore[no-untyped-def]
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f'invalid {what} "{text}": {error}') from None

    convert.__name__ = what
    return convert


_bool = _typed(parse_bool, "bool")
_duration = _typed(parse_duration, "duration")
_int = _typed(int, "int")
_float = _typed(float, "float")


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


class _Formatter(argparse.HelpFormatter):
    """Wraps only at spaces, so a controller name in the description is never split at a hyphen."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )


def build_parser() -> argparse.ArgumentParser:
    built = ", ".join(name.format(apiserver=PROFILES["svc"].apiserver_name) for name in catalog.BUILT)
    parser = _Parser(
        prog="svc-controller-manager",
        description=(
            "The controller daemon runs the control loops that keep the cluster's objects consistent. "
            f"Controllers built in this release: {built}. Every other controller of upstream's list is "
            "refused by --controllers until it is built."
        ),
        allow_abbrev=False,
        formatter_class=_Formatter,
    )
    add = parser.add_argument
    add("--svcconfig", "--kubeconfig", dest="kubeconfig", default="", help="client configuration file")
    add("--master", default="", help="API server address; overrides the address in the configuration file")
    add("--svc-api-qps", "--kube-api-qps", dest="api_qps", type=_float, default=20.0, help="query rate (default 20)")
    add("--svc-api-burst", "--kube-api-burst", dest="api_burst", type=_int, default=30, help="burst (default 30)")
    add(
        "--controllers",
        type=_list,
        default=["*"],
        help=(
            "'*' enables the controllers that are on by default, 'foo' enables foo, '-foo' disables foo "
            f"(default *). Built: {built}"
        ),
    )
    add(
        "--use-service-account-credentials",
        type=_bool,
        nargs="?",
        const=True,
        default=False,
        help="each controller acts as its own service account in the system namespace",
    )
    add("--min-resync-period", type=_duration, default=12 * 3600.0, help="resync base (default 12h0m0s)")
    add(
        "--clock",
        choices=("real", "fake"),
        default="real",
        help="real (default) or fake: follow the API server's fake clock (svc-apiserver --clock=fake; needs admin "
        "credentials for its /testing/v1/clock)",
    )
    add("--leader-elect", type=_bool, nargs="?", const=True, default=True, help="elect a leader (default true)")
    add("--leader-elect-lease-duration", type=_duration, default=15.0, help="default 15s")
    add("--leader-elect-renew-deadline", type=_duration, default=10.0, help="default 10s")
    add("--leader-elect-retry-period", type=_duration, default=2.0, help="default 2s")
    add("--leader-elect-resource-lock", default="leases", help="only 'leases' (default leases)")
    add("--leader-elect-resource-name", default="", help="Lease name (default svc-controller-manager)")
    add("--leader-elect-resource-namespace", default="", help="Lease namespace (default the system namespace)")
    add("--controller-shutdown-timeout", type=_duration, default=10.0, help="default 10s")
    add("--bind-address", default="0.0.0.0", help="listen address of the secure port (default 0.0.0.0)")
    add("--secure-port", type=_int, default=10257, help="HTTPS port of /healthz, /readyz, /livez; 0 turns it off")
    add("--cert-dir", default="", help="directory of the self-signed serving pair")
    add("--tls-cert-file", default="", help="serving certificate")
    add("--tls-private-key-file", default="", help="serving key")
    add("--root-ca-file", default="", help="CA bundle published in every namespace (default the kubeconfig's CA)")
    add("--concurrent-serviceaccount-syncs", type=_int, default=5, help="serviceaccount workers (default 5)")
    add(
        "--enable-garbage-collector",
        type=_bool,
        nargs="?",
        const=True,
        default=True,
        help="run the garbage collector; must match the API server's flag (default true)",
    )
    add("--concurrent-gc-syncs", type=_int, default=20, help="garbage collector workers (default 20)")
    add("--concurrent-namespace-syncs", type=_int, default=10, help="namespace workers (default 10)")
    add("--concurrent-endpoint-syncs", type=_int, default=5, help="endpoints workers (default 5)")
    add("--concurrent-service-endpoint-syncs", type=_int, default=5, help="endpointslice workers (default 5)")
    add("--max-endpoints-per-slice", type=_int, default=100, help="endpoints in one EndpointSlice (default 100)")
    add("--concurrent-resource-quota-syncs", type=_int, default=5, help="resourcequota workers (default 5)")
    add("--resource-quota-sync-period", type=_duration, default=300.0, help="quota full recalculation (default 5m0s)")
    add("--concurrent-ttl-after-finished-syncs", type=_int, default=5, help="ttl-after-finished workers (default 5)")
    add("--concurrent-replicaset-syncs", type=_int, default=5, help="replicaset workers (default 5)")
    add("--concurrent-rc-syncs", type=_int, default=5, help="replicationcontroller workers (default 5)")
    add("--concurrent-deployment-syncs", type=_int, default=5, help="deployment workers (default 5)")
    add("--concurrent-job-syncs", type=_int, default=5, help="job workers (default 5)")
    add(
        "--concurrent-horizontal-pod-autoscaler-syncs",
        type=_int,
        default=5,
        help="horizontal-pod-autoscaler workers (default 5)",
    )
    add(
        "--horizontal-pod-autoscaler-sync-period",
        type=_duration,
        default=15.0,
        help="how often each autoscaler is reconciled (default 15s)",
    )
    add(
        "--horizontal-pod-autoscaler-tolerance",
        type=_float,
        default=0.1,
        help="minimum change of the desired-to-actual ratio from 1.0 before scaling (default 0.1)",
    )
    add(
        "--horizontal-pod-autoscaler-downscale-stabilization",
        type=_duration,
        default=300.0,
        help="look-back that prevents scaling down below earlier recommendations (default 5m0s)",
    )
    add(
        "--horizontal-pod-autoscaler-cpu-initialization-period",
        type=_duration,
        default=300.0,
        help="period after pod start when CPU samples may be skipped (default 5m0s)",
    )
    add(
        "--horizontal-pod-autoscaler-initial-readiness-delay",
        type=_duration,
        default=30.0,
        help="period after pod start when readiness changes count as initial (default 30s)",
    )
    add("--concurrent-cron-job-syncs", type=_int, default=5, help="cronjob workers (default 5)")
    add("--concurrent-daemonset-syncs", type=_int, default=2, help="daemonset workers (default 2)")
    add("--concurrent-statefulset-syncs", type=_int, default=5, help="statefulset workers (default 5)")
    add("--concurrent-ephemeralvolume-syncs", type=_int, default=5, help="ephemeral-volume workers (default 5)")
    add(
        "--concurrent-validating-admission-policy-status-syncs",
        type=_int,
        default=5,
        help="validatingadmissionpolicy-status workers (default 5)",
    )
    add("--node-monitor-period", type=_duration, default=5.0, help="node health check period (default 5s)")
    add(
        "--node-monitor-grace-period",
        type=_duration,
        default=50.0,
        help="silence after which a node is marked Unknown (default 50s)",
    )
    add(
        "--node-startup-grace-period",
        type=_duration,
        default=60.0,
        help="silence allowed to a node that never posted Ready (default 1m0s)",
    )
    add(
        "--node-eviction-rate",
        type=_float,
        default=0.1,
        help="nodes tainted per second in a healthy zone (default 0.1)",
    )
    add(
        "--secondary-node-eviction-rate",
        type=_float,
        default=0.01,
        help="nodes tainted per second in an unhealthy zone of a large cluster (default 0.01)",
    )
    add(
        "--large-cluster-size-threshold",
        type=_int,
        default=50,
        help="nodes above which a cluster is large (default 50)",
    )
    add(
        "--unhealthy-zone-threshold",
        type=_float,
        default=0.55,
        help="fraction of not-ready nodes (at least 3) making a zone unhealthy (default 0.55)",
    )
    add(
        "--terminated-pod-gc-threshold",
        type=_int,
        default=12500,
        help="terminated pods kept before the oldest are deleted; 0 keeps all (default 12500)",
    )
    add("--namespace-sync-period", type=_duration, default=300.0, help="namespace resync (default 5m0s)")
    add(
        "--service-account-private-key-file",
        default="",
        help="PEM RSA or ECDSA key signing legacy token Secrets; without it serviceaccount-token is off",
    )
    add(
        "--concurrent-serviceaccount-token-syncs",
        type=_int,
        default=5,
        help="serviceaccount-token workers (default 5)",
    )
    add(
        "--legacy-service-account-token-clean-up-period",
        type=_duration,
        default=8760 * 3600.0,
        help="unused time before a legacy token can be deleted (default 8760h0m0s)",
    )
    add(
        "--mirroring-concurrent-service-endpoint-syncs",
        type=_int,
        default=5,
        help="endpointslice-mirroring workers (default 5)",
    )
    add(
        "--mirroring-max-endpoints-per-subset",
        type=_int,
        default=1000,
        help="addresses of one Endpoints subset mirrored (default 1000)",
    )
    add(
        "--attach-detach-reconcile-sync-period",
        type=_duration,
        default=60.0,
        help="attach-detach reconcile wait; must exceed one second (default 1m0s)",
    )
    add(
        "--disable-attach-detach-reconcile-sync",
        type=_bool,
        nargs="?",
        const=True,
        default=False,
        help="disable the attach-detach periodic reconcile",
    )
    add(
        "--disable-force-detach-on-timeout",
        type=_bool,
        nargs="?",
        const=True,
        default=False,
        help="never detach a volume the node still reports in use",
    )
    add(
        "--concurrent-resourceclaim-syncs",
        type=_int,
        default=50,
        help="resourceclaim workers creating or deleting claims (default 50)",
    )
    add(
        "--allocate-node-cidrs",
        type=_bool,
        nargs="?",
        const=True,
        default=False,
        help="allocate pod CIDRs to nodes from --cluster-cidr (node-ipam)",
    )
    add("--cluster-cidr", default="", help="pod CIDR range(s), one per IP family; used with --allocate-node-cidrs")
    add("--service-cluster-ip-range", default="", help="service CIDR(s) never handed to nodes")
    add("--cidr-allocator-type", default="RangeAllocator", help="CIDR allocator (default RangeAllocator)")
    add(
        "--node-cidr-mask-size",
        type=_int,
        default=0,
        help="node CIDR mask of a single-stack cluster (24 IPv4, 64 IPv6)",
    )
    add("--node-cidr-mask-size-ipv4", type=_int, default=0, help="node CIDR mask for IPv4 (default 24)")
    add("--node-cidr-mask-size-ipv6", type=_int, default=0, help="node CIDR mask for IPv6 (default 64)")
    add("--pvclaimbinder-sync-period", type=_duration, default=15.0, help="volume and claim resync (default 15s)")
    add(
        "--enable-dynamic-provisioning",
        type=_bool,
        nargs="?",
        const=True,
        default=True,
        help="ask provisioners for volumes of claims with a class (default true)",
    )
    add("--cluster-signing-cert-file", default="", help="CA certificate of the built-in signers")
    add("--cluster-signing-key-file", default="", help="CA key (RSA or ECDSA) of the built-in signers")
    add(
        "--cluster-signing-duration",
        type=_duration,
        default=8760 * 3600.0,
        help="longest certificate life (default 8760h0m0s)",
    )
    for signer, spellings in SIGNING_FLAGS.items():
        for part in ("cert", "key"):
            names = [f"--cluster-signing-{spelling}-{part}-file" for spelling in spellings]
            add(
                *names, dest=f"signing_{signer.replace('-', '_')}_{part}", default="", help=f"{part} of signer {signer}"
            )
    add(
        "--feature-gates",
        action="append",
        default=[],
        help="Name=true|false pairs, the API server's gate set; a controller needing a gate that is off is not started",
    )
    add("--brand-profile", choices=sorted(PROFILES), default="svc", help="identifier spelling of the API server")
    add("-v", "--v", dest="verbosity", type=_int, default=0, help="log level number")
    add("--version", action="store_true", help="print the version and exit")
    delegated_auth.add_arguments(parser)
    metrics_options.add_arguments(parser)
    return parser


def parse_options(argv: list[str]) -> Options:
    args = build_parser().parse_args(argv)
    if args.version:
        from svc import __version__

        print(f"svc-controller-manager {UPSTREAM_VERSION}+svc.{__version__}")
        raise SystemExit(0)
    options = Options(
        **{
            name: getattr(args, name)
            for name in (
                "kubeconfig",
                "master",
                "api_qps",
                "api_burst",
                "controllers",
                "min_resync_period",
                "clock",
                "use_service_account_credentials",
                "leader_elect",
                "controller_shutdown_timeout",
                "bind_address",
                "secure_port",
                "cert_dir",
                "tls_cert_file",
                "tls_private_key_file",
                "root_ca_file",
                "concurrent_serviceaccount_syncs",
                "concurrent_namespace_syncs",
                "concurrent_gc_syncs",
                "concurrent_endpoint_syncs",
                "concurrent_service_endpoint_syncs",
                "max_endpoints_per_slice",
                "concurrent_resource_quota_syncs",
                "resource_quota_sync_period",
                "concurrent_ttl_after_finished_syncs",
                "concurrent_replicaset_syncs",
                "concurrent_rc_syncs",
                "concurrent_deployment_syncs",
                "concurrent_horizontal_pod_autoscaler_syncs",
                "horizontal_pod_autoscaler_sync_period",
                "horizontal_pod_autoscaler_tolerance",
                "horizontal_pod_autoscaler_downscale_stabilization",
                "horizontal_pod_autoscaler_cpu_initialization_period",
                "horizontal_pod_autoscaler_initial_readiness_delay",
                "concurrent_job_syncs",
                "concurrent_cron_job_syncs",
                "concurrent_daemonset_syncs",
                "concurrent_statefulset_syncs",
                "concurrent_ephemeralvolume_syncs",
                "concurrent_validating_admission_policy_status_syncs",
                "node_monitor_period",
                "node_monitor_grace_period",
                "node_startup_grace_period",
                "node_eviction_rate",
                "secondary_node_eviction_rate",
                "large_cluster_size_threshold",
                "unhealthy_zone_threshold",
                "cluster_signing_cert_file",
                "cluster_signing_key_file",
                "cluster_signing_duration",
                "terminated_pod_gc_threshold",
                "enable_garbage_collector",
                "namespace_sync_period",
                "pvclaimbinder_sync_period",
                "service_account_private_key_file",
                "concurrent_serviceaccount_token_syncs",
                "legacy_service_account_token_clean_up_period",
                "mirroring_concurrent_service_endpoint_syncs",
                "mirroring_max_endpoints_per_subset",
                "attach_detach_reconcile_sync_period",
                "disable_attach_detach_reconcile_sync",
                "disable_force_detach_on_timeout",
                "concurrent_resourceclaim_syncs",
                "allocate_node_cidrs",
                "cluster_cidr",
                "service_cluster_ip_range",
                "cidr_allocator_type",
                "node_cidr_mask_size",
                "node_cidr_mask_size_ipv4",
                "node_cidr_mask_size_ipv6",
                "enable_dynamic_provisioning",
                "brand_profile",
                "verbosity",
            )
        },
        lease_duration=args.leader_elect_lease_duration,
        renew_deadline=args.leader_elect_renew_deadline,
        retry_period=args.leader_elect_retry_period,
        resource_lock=args.leader_elect_resource_lock,
    )
    options.cluster_signing_pairs = {
        signer: (
            getattr(args, f"signing_{signer.replace('-', '_')}_cert"),
            getattr(args, f"signing_{signer.replace('-', '_')}_key"),
        )
        for signer in SIGNING_FLAGS
    }
    profile = PROFILES[options.brand_profile]
    default_name = profile.apiserver_name.removesuffix("-apiserver") + "-controller-manager"
    options.resource_name = args.leader_elect_resource_name or default_name
    options.resource_namespace = args.leader_elect_resource_namespace or profile.system_namespace
    options.identity = f"{socket.gethostname()}_{uuid.uuid4()}"
    options.enabled, problems = catalog.select(options.controllers, profile.apiserver_name)
    if not options.enable_garbage_collector:
        options.enabled = [name for name in options.enabled if name != catalog.GARBAGE_COLLECTOR]
    try:
        options.feature_gates = FeatureGates(parse_feature_gates(args.feature_gates))
    except FeatureGateError as error:
        problems.append(f"invalid argument for --feature-gates: {error}")
    options.enabled = [
        name for name in options.enabled if catalog.gates_allow(name, profile.apiserver_name, options.feature_gates)
    ]
    problems += _validate(options)
    options.delegation = delegated_auth.from_args(args)
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


def _validate(options: Options) -> list[str]:
    problems = []
    if not 0 <= options.secure_port <= 65535:
        problems.append(
            f"--secure-port {options.secure_port} must be between 0 and 65535, inclusive. 0 for turning off secure port"
        )
    if bool(options.tls_cert_file) != bool(options.tls_private_key_file):
        problems.append("--tls-cert-file and --tls-private-key-file must be given together")
    if options.api_burst < 0 or options.api_qps < 0:
        problems.append("--svc-api-qps and --svc-api-burst must not be negative")
    for flag, workers in (
        ("--concurrent-serviceaccount-syncs", options.concurrent_serviceaccount_syncs),
        ("--concurrent-namespace-syncs", options.concurrent_namespace_syncs),
        ("--concurrent-gc-syncs", options.concurrent_gc_syncs),
        ("--concurrent-endpoint-syncs", options.concurrent_endpoint_syncs),
        ("--concurrent-service-endpoint-syncs", options.concurrent_service_endpoint_syncs),
        ("--concurrent-resource-quota-syncs", options.concurrent_resource_quota_syncs),
        ("--concurrent-ttl-after-finished-syncs", options.concurrent_ttl_after_finished_syncs),
        ("--concurrent-replicaset-syncs", options.concurrent_replicaset_syncs),
        ("--concurrent-rc-syncs", options.concurrent_rc_syncs),
        ("--concurrent-deployment-syncs", options.concurrent_deployment_syncs),
        ("--concurrent-horizontal-pod-autoscaler-syncs", options.concurrent_horizontal_pod_autoscaler_syncs),
        ("--concurrent-job-syncs", options.concurrent_job_syncs),
        ("--concurrent-cron-job-syncs", options.concurrent_cron_job_syncs),
        ("--concurrent-daemonset-syncs", options.concurrent_daemonset_syncs),
        ("--concurrent-statefulset-syncs", options.concurrent_statefulset_syncs),
        ("--concurrent-ephemeralvolume-syncs", options.concurrent_ephemeralvolume_syncs),
        ("--concurrent-serviceaccount-token-syncs", options.concurrent_serviceaccount_token_syncs),
        ("--mirroring-concurrent-service-endpoint-syncs", options.mirroring_concurrent_service_endpoint_syncs),
        ("--concurrent-resourceclaim-syncs", options.concurrent_resourceclaim_syncs),
    ):
        if workers < 1:
            problems.append(f"{flag} must be at least 1")
    problems += _signing_problems(options)
    if options.attach_detach_reconcile_sync_period < 1.0:
        problems.append(
            "duration time must be greater than one second as set via command line option reconcile-sync-loop-period"
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
