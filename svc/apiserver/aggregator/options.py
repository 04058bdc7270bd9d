"""Flags of the aggregation layer (`--enable-aggregator-routing`, `--proxy-client-*`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from svc.machinery.gotext import parse_bool


@dataclass
class AggregatorOptions:
    enable_aggregator_routing: bool = False
    reject_forwarding_redirect: bool = True
    proxy_client_cert_file: str = ""
    proxy_client_key_file: str = ""


def _bool(flag: str, value: str) -> bool:
    try:
        return parse_bool(value)
    except ValueError as error:
        raise ValueError(f'invalid argument "{value}" for "{flag}" flag: {error}') from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--enable-aggregator-routing",
        nargs="?",
        const="true",
        help="route aggregator requests to endpoint IPs instead of the cluster IP (default false)",
    )
    parser.add_argument(
        "--aggregator-reject-forwarding-redirect",
        nargs="?",
        const="true",
        help="reject redirect responses from forwarded calls (default true)",
    )
    parser.add_argument(
        "--proxy-client-cert-file",
        help="client certificate used when proxying to extension servers (signed by the request-header CA)",
    )
    parser.add_argument("--proxy-client-key-file", help="private key of --proxy-client-cert-file")


def from_args(args: argparse.Namespace) -> AggregatorOptions:
    options = AggregatorOptions()
    if args.enable_aggregator_routing is not None:
        options.enable_aggregator_routing = _bool("--enable-aggregator-routing", args.enable_aggregator_routing)
    if args.aggregator_reject_forwarding_redirect is not None:
        options.reject_forwarding_redirect = _bool(
            "--aggregator-reject-forwarding-redirect", args.aggregator_reject_forwarding_redirect
        )
    cert, key = args.proxy_client_cert_file or "", args.proxy_client_key_file or ""
    if bool(cert) != bool(key):
        raise ValueError("--proxy-client-cert-file and --proxy-client-key-file must be given together")
    for flag, path in (("--proxy-client-cert-file", cert), ("--proxy-client-key-file", key)):
        if path and not Path(path).is_file():
            raise ValueError(f"{flag}: no such file: {path}")
    options.proxy_client_cert_file, options.proxy_client_key_file = cert, key
    return options
