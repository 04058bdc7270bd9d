"""Flags about the other API servers of the cluster: how the `kubernetes` Service's endpoints are kept."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

RECONCILER_TYPES = ("master-count", "lease", "none")


@dataclass
class PeerOptions:
    endpoint_reconciler_type: str = "lease"
    apiserver_count: int = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--endpoint-reconciler-type",
        help="use an endpoint reconciler (master-count, lease, none); master-count is deprecated (default lease)",
    )
    add(
        "--apiserver-count",
        type=int,
        help="the number of API servers running in the cluster, must be a positive number; used with "
        "--endpoint-reconciler-type=master-count (default 1)",
    )


def from_args(args: argparse.Namespace) -> PeerOptions:
    """Raises ValueError on bad input (upstream's texts)."""
    options = PeerOptions()
    if args.endpoint_reconciler_type is not None:
        if args.endpoint_reconciler_type not in RECONCILER_TYPES:
            raise ValueError(f"Reconciler not implemented: {args.endpoint_reconciler_type}")
        options.endpoint_reconciler_type = args.endpoint_reconciler_type
    if args.apiserver_count is not None:
        if args.apiserver_count <= 0:
            raise ValueError(
                f"--apiserver-count should be a positive number, but value '{args.apiserver_count}' provided"
            )
        options.apiserver_count = args.apiserver_count
    return options
