"""Flags of `svc-nodes`, the node simulator: how many nodes, what they offer, how pods behave."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import NoReturn

from svc.api.brand import PROFILES
from svc.client.followed_clock import add_clock_flag
from svc.machinery.flag_types import flag_duration
from svc.nodes.node_objects import NodeShape


@dataclass
class Options:
    kubeconfig: str = ""
    master: str = ""
    count: int = 3
    name_prefix: str = "node-"
    shape: NodeShape = field(default_factory=NodeShape)
    ready_delay: float = 0.0
    run_time: float = 1.0
    schedule: bool = True
    brand_profile: str = "svc"
    verbosity: int = 0
    pod_network_proxy: tuple[str, int] | None = None
    clock: str = "real"

    def node_names(self) -> list[str]:
        return [f"{self.name_prefix}{index}" for index in range(self.count)]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"Error: {message}\n")
        raise SystemExit(2)


def _count(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) <= 1000:
        raise argparse.ArgumentTypeError(f'invalid node count "{text}": must be between 1 and 1000')
    return int(text)


def _bool(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise argparse.ArgumentTypeError(f'invalid boolean "{text}"')
    return text.lower() == "true"


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f'invalid address "{text}": want host:port')
    return host.strip("[]"), int(port)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="svc-nodes",
        description="Simulated nodes: register fake Nodes, schedule pending pods onto them and run those pods.",
        allow_abbrev=False,
    )
    add = parser.add_argument
    add("--svcconfig", "--kubeconfig", dest="kubeconfig", default="", help="client configuration file")
    add("--master", default="", help="API server address; overrides the address in the configuration file")
    add("--count", type=_count, default=3, help="number of nodes (default 3)")
    add("--name-prefix", default="node-", help="node names are <prefix><index> (default node-)")
    add("--cpu", default="4", help="CPU of each node (default 4)")
    add("--memory", default="16Gi", help="memory of each node (default 16Gi)")
    add("--max-pods", default="110", help="pods each node holds (default 110)")
    add("--ready-delay", type=flag_duration, default=0.0, help="time from binding to Running and Ready (default 0s)")
    add(
        "--run-time",
        type=flag_duration,
        default=1.0,
        help="run time of pods with restartPolicy Never/OnFailure or a simulator.svc.io/exit-code (default 1s)",
    )
    add("--schedule", type=_bool, default=True, help="run the simple scheduler for pending pods (default true)")
    add("--brand-profile", choices=sorted(PROFILES), default="svc", help="identifier spelling of the API server")
    add(
        "--pod-network-proxy",
        type=_address,
        default=None,
        help="host:port of an HTTP CONNECT endpoint into the simulated pod network, for an API server's "
        "egress selector (default off)",
    )
    add_clock_flag(parser)
    add("-v", "--v", dest="verbosity", type=int, default=0, help="log verbosity")
    return parser


def parse_options(argv: list[str]) -> Options:
    args = build_parser().parse_args(argv)
    return Options(
        kubeconfig=args.kubeconfig,
        master=args.master,
        count=args.count,
        name_prefix=args.name_prefix,
        shape=NodeShape(cpu=args.cpu, memory=args.memory, pods=args.max_pods),
        ready_delay=args.ready_delay,
        run_time=args.run_time,
        schedule=args.schedule,
        brand_profile=args.brand_profile,
        verbosity=args.verbosity,
        pod_network_proxy=args.pod_network_proxy,
        clock=args.clock,
    )
