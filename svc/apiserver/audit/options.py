"""Audit flags: the policy file and the log backend. The policy is read and checked here, so a bad
one stops the server at start with one line (exit 2)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from svc.apiserver.audit.policy import Policy, load_policy

LOG_FORMATS = ("json", "legacy")
LOG_MODES = ("batch", "blocking", "blocking-strict")


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

    @property
    def enabled(self) -> bool:
        """Upstream audits only with both a policy and a backend."""
        return self.policy is not None and bool(self.log_path)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--audit-policy-file", help="path to the audit policy (audit.k8s.io/v1 Policy); required to audit")
    add("--audit-log-path", help="write audit events to this file ('-' for standard out); empty disables the log")
    add("--audit-log-format", help="format of the audit log: " + ", ".join(LOG_FORMATS) + " (default json)")
    add("--audit-log-mode", help="how events are sent: " + ", ".join(LOG_MODES) + " (default blocking)")
    add("--audit-log-maxage", type=int, help="days to keep rotated audit log files (0: no limit)")
    add("--audit-log-maxbackup", type=int, help="rotated audit log files to keep (0: no limit)")
    add("--audit-log-maxsize", type=int, help="megabytes a log file grows to before it is rotated (0: never)")


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
    if args.audit_log_mode is not None:
        if args.audit_log_mode not in LOG_MODES:
            raise ValueError(f'invalid audit log mode {args.audit_log_mode}, allowed modes are "{",".join(LOG_MODES)}"')
        options.log_mode = args.audit_log_mode
    for flag, name in (("maxage", "log_max_age"), ("maxbackup", "log_max_backups"), ("maxsize", "log_max_size")):
        value = getattr(args, f"audit_log_{flag}")
        if value is not None:
            if value < 0:
                raise ValueError(f"--audit-log-{flag} {value} must be a positive number")
            setattr(options, name, value)
    if args.audit_policy_file:
        options.policy_file = args.audit_policy_file
        options.policy = load_policy(args.audit_policy_file)
    return options
