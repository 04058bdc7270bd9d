"""Flags of request limiting (spec 2): priority and fairness, the in-flight limits, and the byte
rate of long-running connections."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from svc.machinery.flag_types import flag_bool


@dataclass
class FlowControlOptions:
    enable_priority_and_fairness: bool = True
    max_requests_inflight: int = 400
    max_mutating_requests_inflight: int = 200
    max_connection_bytes_per_sec: int = 0

    @property
    def server_limit(self) -> int:
        """The seats APF shares between its levels."""
        return self.max_requests_inflight + self.max_mutating_requests_inflight


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--max-requests-inflight",
        type=int,
        help="non-mutating requests in flight (default 400); with priority and fairness, summed with the mutating "
        "limit as the server's seats; without it 0 means no limit",
    )
    add("--max-mutating-requests-inflight", type=int, help="mutating requests in flight (default 200)")
    add(
        "--enable-priority-and-fairness",
        type=flag_bool,
        nargs="?",
        const=True,
        help="queue requests with API priority and fairness instead of the plain in-flight limits (default true)",
    )
    add(
        "--max-connection-bytes-per-sec",
        type=int,
        help="bytes per second each long-running response (watch, logs, exec) may send; 0 is no limit (default 0)",
    )


def from_args(args: argparse.Namespace) -> FlowControlOptions:
    options = FlowControlOptions()
    if args.enable_priority_and_fairness is not None:
        options.enable_priority_and_fairness = args.enable_priority_and_fairness
    for name in ("max_requests_inflight", "max_mutating_requests_inflight", "max_connection_bytes_per_sec"):
        value = getattr(args, name)
        if value is not None:
            if value < 0:
                raise ValueError(f"--{name.replace('_', '-')} can not be negative value")
            setattr(options, name, value)
    if options.enable_priority_and_fairness and options.server_limit <= 0:
        raise ValueError(
            "--max-requests-inflight plus --max-mutating-requests-inflight must be positive when "
            "--enable-priority-and-fairness is true"
        )
    return options
