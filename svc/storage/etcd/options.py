"""Flags of the etcd backend (`--storage-backend=store3`), beside the general storage flags.

`--store-servers-overrides` keeps upstream's syntax: `group/resource#servers`, the servers of one
override separated by semicolons (a comma separates overrides), the core group written empty
(`/events#http://127.0.0.1:4002`).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from svc.machinery.flag_types import flag_duration

if TYPE_CHECKING:
    from svc.storage.etcd.backend import EtcdBackend


@dataclass
class EtcdOptions:
    servers_overrides: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    cafile: str = ""
    certfile: str = ""
    keyfile: str = ""
    healthcheck_timeout: float = 2.0
    readycheck_timeout: float = 2.0
    db_metric_poll_interval: float = 30.0
    dial_timeout: float = 60.0

    def backend(self, servers: list[str], request_timeout: float) -> EtcdBackend:
        # imported here: gRPC and etcd's messages take a tenth of a second to load, which a server on
        # SQLite (and every run of --help) need not spend
        from svc.storage.etcd.backend import EtcdBackend, TlsFiles

        tls = TlsFiles(self.cafile, self.certfile, self.keyfile)
        return EtcdBackend(servers, tls=tls, request_timeout=request_timeout, dial_timeout=self.dial_timeout)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--store-servers-overrides",
        help="per-resource store servers, group/resource#servers, servers separated by semicolons",
    )
    add("--store-cafile", help="TLS certificate authority file for talking to the store")
    add("--store-certfile", help="TLS client certificate file for talking to the store")
    add("--store-keyfile", help="TLS client key file for talking to the store")
    add("--store-healthcheck-timeout", type=flag_duration, help="timeout of the store health check (default 2s)")
    add("--store-readycheck-timeout", type=flag_duration, help="timeout of the store readiness check (default 2s)")
    add(
        "--store-db-metric-poll-interval",
        type=flag_duration,
        help="interval of polling the store size metric; 0 disables (default 30s)",
    )
    add(
        "--storage-initialization-timeout",
        type=flag_duration,
        help="how long to wait for the store at start (default 1m0s)",
    )


def parse_overrides(text: str) -> dict[tuple[str, str], list[str]]:
    overrides: dict[tuple[str, str], list[str]] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, servers = item.partition("#")
        group, slash, resource = name.partition("/")
        if not servers or not slash or not resource:
            expected = "must be of format: group/resource#servers"
            raise ValueError(f"--store-servers-overrides invalid, {expected}, got {item}")
        overrides[(group, resource)] = [server for server in servers.split(";") if server]
    return overrides


def from_args(args: argparse.Namespace) -> EtcdOptions:
    """Raises ValueError on bad input."""
    options = EtcdOptions()
    if args.store_servers_overrides:
        options.servers_overrides = parse_overrides(args.store_servers_overrides)
    for name in ("cafile", "certfile", "keyfile"):
        value = getattr(args, f"store_{name}")
        if value:
            try:
                with open(value, "rb"):
                    pass
            except OSError as error:
                raise ValueError(f"--store-{name}: {error.strerror}: {value}") from None
            setattr(options, name, value)
    for name, value in (
        ("healthcheck_timeout", args.store_healthcheck_timeout),
        ("readycheck_timeout", args.store_readycheck_timeout),
        ("db_metric_poll_interval", args.store_db_metric_poll_interval),
        ("dial_timeout", args.storage_initialization_timeout),
    ):
        if value is not None:
            setattr(options, name, value)
    return options
