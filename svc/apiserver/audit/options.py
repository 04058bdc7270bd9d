"""Audit flags: the policy file, the log backend and the webhook backend, with the batching and
truncation flags of each. Everything is read and checked here, so a bad policy, kubeconfig or value
stops the server at start with one line (exit 2)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from svc.apiserver.audit.policy import API_VERSIONS, Policy, load_policy
from svc.apiserver.webhook_kubeconfig import load_webhook_kubeconfig
from svc.client.kubeconfig import ClientConfig
from svc.machinery.flag_types import flag_bool, flag_duration

LOG_FORMATS = ("json", "legacy")
LOG_MODES = ("batch", "blocking", "blocking-strict")


@dataclass
class BatchOptions:
    """Upstream's buffered backend: events queue in a buffer of `buffer_size` (dropped when it is
    full), leave in batches of up to `max_batch_size` or after `max_wait` seconds, at most
    `throttle_qps` batches a second (bursts of `throttle_burst`) when throttling is on."""

    buffer_size: int = 10_000
    max_batch_size: int = 400
    max_wait: float = 30.0
    throttle_enable: bool = True
    throttle_qps: float = 10.0
    throttle_burst: int = 15


@dataclass
class TruncateOptions:
    enabled: bool = False
    max_batch_size: int = 10 * 1024 * 1024
    max_event_size: int = 100 * 1024


@dataclass
class AuditOptions:
    policy_file: str = ""
    policy: Policy | None = None
    log_path: str = ""
    log_format: str = "json"
    log_mode: str = "blocking"
    log_max_age: int = 0
    log_max_backups: int = 0
    log_max_size: int = 0
    log_compress: bool = False
    log_version: str = "audit.k8s.io/v1"
    log_batch: BatchOptions = field(
        default_factory=lambda: BatchOptions(max_batch_size=1, max_wait=0.0, throttle_enable=False, throttle_qps=0.0)
    )
    log_truncate: TruncateOptions = field(default_factory=TruncateOptions)
    webhook_config_file: str = ""
    webhook_config: ClientConfig | None = None
    webhook_mode: str = "batch"
    webhook_version: str = "audit.k8s.io/v1"
    webhook_initial_backoff: float = 10.0
    webhook_batch: BatchOptions = field(default_factory=BatchOptions)
    webhook_truncate: TruncateOptions = field(default_factory=TruncateOptions)

    @property
    def enabled(self) -> bool:
        """Upstream audits only with both a policy and a backend."""
        return self.policy is not None and bool(self.log_path or self.webhook_config_file)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--audit-policy-file", help="path to the audit policy (audit.k8s.io/v1 Policy); required to audit")
    add("--audit-log-path", help="write audit events to this file ('-' for standard out); empty disables the log")
    add("--audit-log-format", help="format of the audit log: " + ", ".join(LOG_FORMATS) + " (default json)")
    add("--audit-log-mode", help="how events are sent: " + ", ".join(LOG_MODES) + " (default blocking)")
    add("--audit-log-maxage", type=int, help="days to keep rotated audit log files (0: no limit)")
    add("--audit-log-maxbackup", type=int, help="rotated audit log files to keep (0: no limit)")
    add("--audit-log-maxsize", type=int, help="megabytes a log file grows to before it is rotated (0: never)")
    add("--audit-log-compress", type=flag_bool, nargs="?", const=True, help="gzip rotated audit log files")
    add("--audit-log-version", help="API group and version of the logged events (default audit.k8s.io/v1)")
    add("--audit-webhook-config-file", help="kubeconfig of the remote service audit events are sent to")
    add("--audit-webhook-mode", help="how events are sent: " + ", ".join(LOG_MODES) + " (default batch)")
    add("--audit-webhook-version", help="API group and version of the sent events (default audit.k8s.io/v1)")
    add("--audit-webhook-initial-backoff", type=flag_duration, help="wait before retrying a failed call (default 10s)")
    for backend in ("log", "webhook"):
        add(f"--audit-{backend}-batch-buffer-size", type=int, help="events buffered before they are dropped")
        add(f"--audit-{backend}-batch-max-size", type=int, help="events in one batch at most")
        add(f"--audit-{backend}-batch-max-wait", type=flag_duration, help="wait before a batch not full is sent")
        add(f"--audit-{backend}-batch-throttle-enable", type=flag_bool, nargs="?", const=True, help="throttle batches")
        add(f"--audit-{backend}-batch-throttle-qps", type=float, help="batches a second on average")
        add(f"--audit-{backend}-batch-throttle-burst", type=int, help="batches sent at once when unthrottled before")
        add(f"--audit-{backend}-truncate-enabled", type=flag_bool, nargs="?", const=True, help="truncate large events")
        add(f"--audit-{backend}-truncate-max-batch-size", type=int, help="bytes of a batch before it is split")
        add(f"--audit-{backend}-truncate-max-event-size", type=int, help="bytes of an event before it is cut down")


def _mode(backend: str, value: str | None, default: str) -> str:
    if value is None:
        return default
    if value not in LOG_MODES:
        raise ValueError(f'invalid audit {backend} mode {value}, allowed modes are "{",".join(LOG_MODES)}"')
    return value


def _version(backend: str, value: str | None, default: str) -> str:
    if value is None:
        return default
    if value not in API_VERSIONS:
        raise ValueError(f'invalid audit {backend} version {value}, allowed versions are "{",".join(API_VERSIONS)}"')
    return value


def _batch(args: argparse.Namespace, backend: str, options: BatchOptions) -> BatchOptions:
    for flag, name in (
        ("buffer_size", "buffer_size"),
        ("max_size", "max_batch_size"),
        ("max_wait", "max_wait"),
        ("throttle_enable", "throttle_enable"),
        ("throttle_qps", "throttle_qps"),
        ("throttle_burst", "throttle_burst"),
    ):
        value = getattr(args, f"audit_{backend}_batch_{flag}")
        if value is not None:
            setattr(options, name, value)
    return options


def _check_batch(backend: str, options: BatchOptions) -> None:
    if options.buffer_size <= 0:
        raise ValueError(f"invalid audit batch {backend} buffer size {options.buffer_size}, must be a positive number")
    if options.max_batch_size <= 0:
        raise ValueError(
            f"invalid audit batch {backend} max batch size {options.max_batch_size}, must be a positive number"
        )
    if options.max_batch_size > options.buffer_size:
        raise ValueError(
            f"invalid audit batch {backend} max batch size {options.max_batch_size}, must be less than or equal to "
            f"buffer size {options.buffer_size}"
        )
    if options.throttle_enable:
        if options.throttle_qps <= 0:
            raise ValueError(
                f"invalid audit batch {backend} throttle QPS {options.throttle_qps:g}, must be a positive number"
            )
        if options.throttle_burst <= 0:
            raise ValueError(
                f"invalid audit batch {backend} throttle burst {options.throttle_burst}, must be a positive number"
            )


def _truncate(args: argparse.Namespace, backend: str, options: TruncateOptions) -> TruncateOptions:
    for name in ("enabled", "max_batch_size", "max_event_size"):
        value = getattr(args, f"audit_{backend}_truncate_{name}")
        if value is not None:
            setattr(options, name, value)
    if options.enabled:
        if options.max_event_size <= 0:
            raise ValueError(
                f"invalid audit truncate {backend} max event size {options.max_event_size}, must be a positive number"
            )
        if options.max_batch_size <= 0:
            raise ValueError(
                f"invalid audit truncate {backend} max batch size {options.max_batch_size}, must be a positive number"
            )
        if options.max_event_size > options.max_batch_size:
            raise ValueError(
                f"invalid audit truncate {backend} max event size {options.max_event_size}, must be less than or "
                f"equal to max batch size {options.max_batch_size}"
            )
    return options


def from_args(args: argparse.Namespace) -> AuditOptions:
    options = AuditOptions()
    if args.audit_log_path is not None:
        options.log_path = args.audit_log_path
    if args.audit_log_format is not None:
        if args.audit_log_format not in LOG_FORMATS:
            raise ValueError(
                f'--audit-log-format: Unsupported value: "{args.audit_log_format}": supported values: '
                + ", ".join(f'"{name}"' for name in LOG_FORMATS)
            )
        options.log_format = args.audit_log_format
    options.log_mode = _mode("log", args.audit_log_mode, options.log_mode)
    options.webhook_mode = _mode("webhook", args.audit_webhook_mode, options.webhook_mode)
    options.log_version = _version("log", args.audit_log_version, options.log_version)
    options.webhook_version = _version("webhook", args.audit_webhook_version, options.webhook_version)
    for flag, name in (("maxage", "log_max_age"), ("maxbackup", "log_max_backups"), ("maxsize", "log_max_size")):
        value = getattr(args, f"audit_log_{flag}")
        if value is not None:
            if value < 0:
                raise ValueError(f"--audit-log-{flag} {value} must be a positive number")
            setattr(options, name, value)
    if args.audit_log_compress is not None:
        options.log_compress = args.audit_log_compress
    if args.audit_webhook_initial_backoff is not None:
        if args.audit_webhook_initial_backoff <= 0:
            raise ValueError(
                f"--audit-webhook-initial-backoff {args.audit_webhook_initial_backoff:g}s must be a positive duration"
            )
        options.webhook_initial_backoff = args.audit_webhook_initial_backoff
    options.log_batch = _batch(args, "log", options.log_batch)
    options.webhook_batch = _batch(args, "webhook", options.webhook_batch)
    options.log_truncate = _truncate(args, "log", options.log_truncate)
    options.webhook_truncate = _truncate(args, "webhook", options.webhook_truncate)
    if options.log_path and options.log_mode == "batch":
        _check_batch("log", options.log_batch)
    if args.audit_webhook_config_file:
        options.webhook_config_file = args.audit_webhook_config_file
        options.webhook_config = load_webhook_kubeconfig(args.audit_webhook_config_file)
        if options.webhook_mode == "batch":
            _check_batch("webhook", options.webhook_batch)
    if args.audit_policy_file:
        options.policy_file = args.audit_policy_file
        options.policy = load_policy(args.audit_policy_file)
    return options
