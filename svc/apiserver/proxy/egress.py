"""`--egress-selector-config-file`: how the API server reaches the cluster network (pod and service
endpoints), directly or through an HTTP CONNECT proxy (a konnectivity server, or the node simulator's).

Only the `cluster` selection with `proxyProtocol: HTTPConnect` over `transport.tcp` (plain http) or
`Direct` is understood; anything else is a ValueError naming the field.
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass
from urllib.parse import urlsplit

import yaml

_KINDS = ("apiserver.k8s.io/v1beta1", "apiserver.k8s.io/v1alpha1", "apiserver.k8s.io/v1")


@dataclass(frozen=True)
class EgressOptions:
    cluster_proxy: tuple[str, int] | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--egress-selector-config-file",
        default="",
        help="file with the apiserver egress selector configuration (only the cluster HTTPConnect/Direct selection)",
    )


def from_args(args: argparse.Namespace) -> EgressOptions:
    path = getattr(args, "egress_selector_config_file", "")
    if not path:
        return EgressOptions()
    try:
        with open(path, encoding="utf-8") as handle:
            config = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(f"failed to read egress selector configuration from {path}: {error}") from None
    if config.get("kind") != "EgressSelectorConfiguration" or config.get("apiVersion") not in _KINDS:
        raise ValueError(f"{path}: not an EgressSelectorConfiguration of apiserver.k8s.io")
    for selection in config.get("egressSelections") or []:
        if (selection.get("name") or "").lower() != "cluster":
            continue
        connection = selection.get("connection") or {}
        protocol = connection.get("proxyProtocol")
        if protocol == "Direct":
            return EgressOptions()
        if protocol != "HTTPConnect":
            raise ValueError(f"egressSelections.connection.proxyProtocol: Unsupported value: {protocol!r}")
        url = ((connection.get("transport") or {}).get("tcp") or {}).get("url", "")
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname or not parts.port:
            raise ValueError(
                f"egressSelections.connection.transport.tcp.url: Invalid value: {url!r}: want http://host:port"
            )
        return EgressOptions(cluster_proxy=(parts.hostname, parts.port))
    return EgressOptions()


async def open_cluster_connection(
    options: EgressOptions, host: str, port: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP stream to host:port on the cluster network; OSError when it cannot be had."""
    if options.cluster_proxy is None:
        return await asyncio.open_connection(host, port)
    reader, writer = await asyncio.open_connection(*options.cluster_proxy)
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    writer.write(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    if status_line.split(" ")[1:2] != ["200"]:
        writer.close()
        raise OSError(f"proxy error from {options.cluster_proxy[0]}:{options.cluster_proxy[1]}: {status_line}")
    return reader, writer
