"""The flags of `svc-controller-manager` as one table: each row names a flag (and its upstream
spelling), the `Options` field it sets, how its value is parsed, and what it means. The table drives
both the parser and `parse_options`; defaults live once, in `Options`, and the help shows them as
upstream's does (`(default 5m0s)`). Flags with rules of their own (the per-signer CA pairs, the
delegated authentication and metrics flags) are added by their own code.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from svc.client.followed_clock import CLOCK_CHOICES, CLOCK_HELP
from svc.machinery.duration import format_duration, parse_duration
from svc.machinery.gotext import parse_bool


def _typed(parse: Callable[[str], Any], what: str) -> Callable[[str], Any]:
    """A flag type whose refusal reads as upstream's (`invalid duration "5x": ...`)."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f'invalid {what} "{text}": {error}') from None

    convert.__name__ = what
    return convert


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


# kind -> (argparse type, how the default is shown)
KINDS: dict[str, tuple[Callable[[str], Any] | None, Callable[[Any], str]]] = {
    "str": (None, str),
    "int": (_typed(int, "int"), str),
    "float": (_typed(float, "float"), lambda value: f"{value:g}"),
    "duration": (_typed(parse_duration, "duration"), format_duration),
    "bool": (_typed(parse_bool, "bool"), lambda value: str(value).lower()),
    "list": (_list, ",".join),
    "repeated": (None, lambda value: ""),
    "ints": (
        _typed(lambda text: [int(item) for item in _list(text)], "int32Slice"),
        lambda value: ",".join(map(str, value)),
    ),
}


@dataclass(frozen=True)
class Flag:
    names: tuple[str, ...]
    field: str
    kind: str
    help: str
    workers: bool = False
    """A worker count: fewer than 1 is refused (`--x must be at least 1`)."""
    choices: tuple[str, ...] = ()


def _workers(name: str, what: str) -> Flag:
    return Flag((name,), name.removeprefix("--").replace("-", "_"), "int", f"{what} workers", workers=True)


def _flag(
    names: str | tuple[str, ...], kind: str, help: str, *, field: str = "", choices: tuple[str, ...] = ()
) -> Flag:
    spelled = (names,) if isinstance(names, str) else names
    return Flag(spelled, field or spelled[0].removeprefix("--").replace("-", "_"), kind, help, choices=choices)


FLAGS: tuple[Flag, ...] = (
    _flag(("--svcconfig", "--kubeconfig"), "str", "client configuration file", field="kubeconfig"),
    _flag("--master", "str", "API server address; overrides the address in the configuration file"),
    _flag(("--svc-api-qps", "--kube-api-qps"), "float", "query rate", field="api_qps"),
    _flag(("--svc-api-burst", "--kube-api-burst"), "int", "burst", field="api_burst"),
    _flag(
        ("--svc-api-content-type", "--kube-api-content-type"),
        "str",
        "content type of requests sent to the API server: the Protobuf media type (built-in kinds in Protobuf, "
        "others in JSON) or application/json (default the brand's Protobuf media type, application/vnd.svc.protobuf)",
        field="api_content_type",
    ),
    _flag(
        "--controllers",
        "list",
        "'*' enables the controllers that are on by default, 'foo' enables foo, '-foo' disables foo",
    ),
    _flag(
        "--use-service-account-credentials",
        "bool",
        "each controller acts as its own service account in the system namespace",
    ),
    _flag(
        "--min-resync-period",
        "duration",
        "informers resync at a random period between this and twice it, drawn once per informer factory",
    ),
    _flag("--clock", "str", CLOCK_HELP, choices=CLOCK_CHOICES),
    _flag("--leader-elect", "bool", "elect a leader"),
    _flag(
        "--leader-elect-lease-duration",
        "duration",
        "wait of candidates before taking an unrenewed lease",
        field="lease_duration",
    ),
    _flag("--leader-elect-renew-deadline", "duration", "renewal attempts before giving up", field="renew_deadline"),
    _flag("--leader-elect-retry-period", "duration", "wait between attempts", field="retry_period"),
    _flag("--leader-elect-resource-lock", "str", "only 'leases'", field="resource_lock"),
    _flag("--leader-elect-resource-name", "str", "Lease name (default svc-controller-manager)", field="resource_name"),
    _flag(
        "--leader-elect-resource-namespace",
        "str",
        "Lease namespace (default the system namespace)",
        field="resource_namespace",
    ),
    _flag("--enable-leader-migration", "bool", "controller leader migration (needs --leader-elect)"),
    _flag(
        "--leader-migration-config",
        "str",
        "LeaderMigrationConfiguration file (group controllermanager.config.k8s.io, version v1alpha1); "
        "empty for upstream's default",
    ),
    _flag("--controller-shutdown-timeout", "duration", "wait for controllers before the process ends"),
    _flag("--controller-start-interval", "duration", "wait (jittered up to twice) after starting each controller"),
    _flag("--bind-address", "str", "listen address of the secure port"),
    _flag("--secure-port", "int", "HTTPS port of /healthz, /readyz, /livez; 0 turns it off"),
    _flag("--cert-dir", "str", "directory of the self-signed serving pair"),
    _flag("--tls-cert-file", "str", "serving certificate"),
    _flag("--tls-private-key-file", "str", "serving key"),
    _flag("--permit-port-sharing", "bool", "bind the secure port with SO_REUSEPORT, so several processes share it"),
    _flag("--permit-address-sharing", "bool", "bind with SO_REUSEADDR (always done here)"),
    _flag("--profiling", "bool", "serve /debug/pprof/ (the Python profiles of svc-apiserver's --profiling)"),
    _flag(
        "--contention-profiling",
        "bool",
        "block profiling, with --profiling (Python has no block profile: accepted as upstream, it adds nothing)",
    ),
    _flag("--tls-min-version", "str", "VersionTLS10 to VersionTLS13 (default VersionTLS12)"),
    _flag(
        "--tls-sni-cert-key",
        "repeated",
        "cert,key[:name,...]: a pair served to clients asking for its names (else its certificate's); repeatable",
    ),
    _flag("--tls-cipher-suites", "list", "Go names of the TLS 1.2 cipher suites offered"),
    _flag("--tls-curve-preferences", "ints", "Go curve ids of the key exchange groups offered"),
    _flag("--disable-http2-serving", "bool", "serve HTTP/1.1 only: ALPN offers no h2"),
    _flag(
        "--http2-max-streams-per-connection",
        "int",
        "HTTP/2 streams a client may open at once on the secure port (0: Go's default, 100)",
    ),
    _flag("--root-ca-file", "str", "CA bundle published in every namespace (default the kubeconfig's CA)"),
    _workers("--concurrent-serviceaccount-syncs", "serviceaccount"),
    _flag("--enable-garbage-collector", "bool", "run the garbage collector; must match the API server's flag"),
    _workers("--concurrent-gc-syncs", "garbage collector"),
    _workers("--concurrent-namespace-syncs", "namespace"),
    _workers("--concurrent-endpoint-syncs", "endpoints"),
    _workers("--concurrent-service-endpoint-syncs", "endpointslice"),
    _flag("--max-endpoints-per-slice", "int", "endpoints in one EndpointSlice"),
    _flag("--endpoint-updates-batch-period", "duration", "delay joining pod changes into one Endpoints update"),
    _flag(
        "--endpointslice-updates-batch-period", "duration", "delay joining pod changes into one EndpointSlice update"
    ),
    _workers("--concurrent-resource-quota-syncs", "resourcequota"),
    _flag("--resource-quota-sync-period", "duration", "quota full recalculation"),
    _workers("--concurrent-ttl-after-finished-syncs", "ttl-after-finished"),
    _workers("--concurrent-replicaset-syncs", "replicaset"),
    _workers("--concurrent-rc-syncs", "replicationcontroller"),
    _workers("--concurrent-deployment-syncs", "deployment"),
    _workers("--concurrent-job-syncs", "job"),
    _workers("--concurrent-horizontal-pod-autoscaler-syncs", "horizontal-pod-autoscaler"),
    _flag("--horizontal-pod-autoscaler-sync-period", "duration", "how often each autoscaler is reconciled"),
    _flag(
        "--horizontal-pod-autoscaler-tolerance",
        "float",
        "minimum change of the desired-to-actual ratio from 1.0 before scaling",
    ),
    _flag(
        "--horizontal-pod-autoscaler-downscale-stabilization",
        "duration",
        "look-back that prevents scaling down below earlier recommendations",
    ),
    _flag(
        "--horizontal-pod-autoscaler-cpu-initialization-period",
        "duration",
        "period after pod start when CPU samples may be skipped",
    ),
    _flag(
        "--horizontal-pod-autoscaler-initial-readiness-delay",
        "duration",
        "period after pod start when readiness changes count as initial",
    ),
    _workers("--concurrent-cron-job-syncs", "cronjob"),
    _workers("--concurrent-daemonset-syncs", "daemonset"),
    _workers("--concurrent-statefulset-syncs", "statefulset"),
    _workers("--concurrent-ephemeralvolume-syncs", "ephemeral-volume"),
    _workers("--concurrent-validating-admission-policy-status-syncs", "validatingadmissionpolicy-status"),
    _flag("--node-monitor-period", "duration", "node health check period"),
    _flag("--node-monitor-grace-period", "duration", "silence after which a node is marked Unknown"),
    _flag("--node-startup-grace-period", "duration", "silence allowed to a node that never posted Ready"),
    _flag("--node-eviction-rate", "float", "nodes tainted per second in a healthy zone"),
    _flag(
        "--secondary-node-eviction-rate", "float", "nodes tainted per second in an unhealthy zone of a large cluster"
    ),
    _flag("--large-cluster-size-threshold", "int", "nodes above which a cluster is large"),
    _flag("--unhealthy-zone-threshold", "float", "fraction of not-ready nodes (at least 3) making a zone unhealthy"),
    _flag("--terminated-pod-gc-threshold", "int", "terminated pods kept before the oldest are deleted; 0 keeps all"),
    _flag("--namespace-sync-period", "duration", "namespace resync"),
    _flag(
        "--service-account-private-key-file",
        "str",
        "PEM RSA or ECDSA key signing legacy token Secrets; without it serviceaccount-token is off",
    ),
    _workers("--concurrent-serviceaccount-token-syncs", "serviceaccount-token"),
    _flag(
        "--legacy-service-account-token-clean-up-period",
        "duration",
        "unused time before a legacy token can be deleted",
    ),
    _workers("--mirroring-concurrent-service-endpoint-syncs", "endpointslice-mirroring"),
    _flag("--mirroring-max-endpoints-per-subset", "int", "addresses of one Endpoints subset mirrored"),
    _flag(
        "--mirroring-endpointslice-updates-batch-period",
        "duration",
        "delay joining EndpointSlice changes into one mirroring sync",
    ),
    _flag(
        "--attach-detach-reconcile-sync-period",
        "duration",
        "attach-detach reconcile wait; must exceed one second",
    ),
    _flag("--disable-attach-detach-reconcile-sync", "bool", "disable the attach-detach periodic reconcile"),
    _flag("--disable-force-detach-on-timeout", "bool", "never detach a volume the node still reports in use"),
    _workers("--concurrent-resourceclaim-syncs", "resourceclaim (creating or deleting claims)"),
    _workers("--concurrent-device-taint-eviction-syncs", "device-taint-eviction"),
    _flag("--allocate-node-cidrs", "bool", "allocate pod CIDRs to nodes from --cluster-cidr (node-ipam)"),
    _flag("--cluster-cidr", "str", "pod CIDR range(s), one per IP family; used with --allocate-node-cidrs"),
    _flag("--service-cluster-ip-range", "str", "service CIDR(s) never handed to nodes"),
    _flag("--cidr-allocator-type", "str", "CIDR allocator"),
    _flag("--node-cidr-mask-size", "int", "node CIDR mask of a single-stack cluster (24 IPv4, 64 IPv6)"),
    _flag("--node-cidr-mask-size-ipv4", "int", "node CIDR mask for IPv4 (24 when unset)"),
    _flag("--node-cidr-mask-size-ipv6", "int", "node CIDR mask for IPv6 (64 when unset)"),
    _flag("--pvclaimbinder-sync-period", "duration", "volume and claim resync"),
    _flag("--pv-recycler-minimum-timeout-nfs", "int", "minimum active deadline (seconds) of an NFS recycler pod"),
    _flag("--pv-recycler-increment-timeout-nfs", "int", "seconds added per Gi of the volume to an NFS recycler pod"),
    _flag("--pv-recycler-pod-template-filepath-nfs", "str", "pod template of the NFS recycler"),
    _flag("--pv-recycler-minimum-timeout-hostpath", "int", "minimum active deadline of a hostPath recycler pod"),
    _flag("--pv-recycler-timeout-increment-hostpath", "int", "seconds added per Gi to a hostPath recycler pod"),
    _flag("--pv-recycler-pod-template-filepath-hostpath", "str", "pod template of the hostPath recycler"),
    _flag("--enable-dynamic-provisioning", "bool", "ask provisioners for volumes of claims with a class"),
    _flag(
        "--enable-hostpath-provisioner",
        "bool",
        "host-path provisioning for tests (no in-tree provisioner runs here: claims wait for an external one)",
    ),
    _flag("--flex-volume-plugin-dir", "str", "directory of third-party (flex) volume plugins"),
    _workers("--concurrent-service-syncs", "service-lb (accepted; the controller needs a cloud provider)"),
    _flag("--cloud-provider", "str", "'' (none) or 'external'; in-tree providers are gone, as upstream"),
    _flag("--cloud-config", "str", "cloud provider configuration file (unused without an in-tree provider)"),
    _flag("--external-cloud-volume-plugin", "str", "volume plugin provider with --cloud-provider=external"),
    _flag(
        "--cluster-name", "str", "instance prefix of the cloud controllers (default svc; kubernetes under that profile)"
    ),
    _flag("--configure-cloud-routes", "bool", "route controller: configure allocated CIDRs on the cloud provider"),
    _flag("--route-reconciliation-period", "duration", "route controller: reconcile period"),
    _flag("--cluster-signing-cert-file", "str", "CA certificate of the built-in signers"),
    _flag("--cluster-signing-key-file", "str", "CA key (RSA or ECDSA) of the built-in signers"),
    _flag("--cluster-signing-duration", "duration", "longest certificate life"),
    _flag("--brand-profile", "str", "identifier spelling of the API server", choices=("kubernetes", "svc")),
    _flag(("-v", "--v"), "int", "log level number", field="verbosity"),
    _flag("--vmodule", "str", "pattern=N,...: log level number per module (file name glob)"),
    _flag(
        "--log-text-info-buffer-size",
        "str",
        "alpha (LoggingAlphaOptions), with --log-text-split-stream: bytes of info lines buffered before a write",
    ),
    _flag(
        "--log-text-split-stream",
        "bool",
        "alpha (LoggingAlphaOptions): info lines to stdout, warnings and errors to stderr",
    ),
    _flag("--logging-format", "str", "only 'text'"),
    _flag("--log-flush-frequency", "duration", "longest time between log flushes (each line is flushed at once here)"),
)


def add_to(parser: argparse.ArgumentParser, defaults: Mapping[str, Any]) -> None:
    """Add every row; `defaults` (the Options field defaults) are shown in the help, not set: a flag
    left out leaves its field to the Options default."""
    for flag in FLAGS:
        parse, show = KINDS[flag.kind]
        default = defaults[flag.field]
        shown = f" (default {show(default)})" if default not in ("", 0, False, None, []) else ""
        extra: dict[str, Any] = {"nargs": "?", "const": True} if flag.kind == "bool" else {}
        if flag.choices:
            extra["choices"] = flag.choices
        if flag.kind == "repeated":
            extra["action"] = "append"
        parser.add_argument(
            *flag.names,
            dest=flag.field,
            type=parse,
            default=argparse.SUPPRESS,
            help=flag.help + shown,
            **extra,
        )


def given(args: argparse.Namespace) -> dict[str, Any]:
    """The table's fields the command line set."""
    return {flag.field: getattr(args, flag.field) for flag in FLAGS if hasattr(args, flag.field)}


def worker_problems(values: Mapping[str, Any]) -> list[str]:
    return [f"{flag.names[0]} must be at least 1" for flag in FLAGS if flag.workers and values[flag.field] < 1]
