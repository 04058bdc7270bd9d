"""How the API server reaches a node's kubelet (for `pods/log`): its address and port from the Node,
and an HTTPS client.

As upstream without `--kubelet-certificate-authority`, the kubelet's serving certificate is not
verified. The address is the first of the node's addresses in upstream's default preference
(`--kubelet-preferred-address-types`: Hostname, InternalDNS, InternalIP, ExternalDNS, ExternalIP);
the port is the one the node advertises (`daemonEndpoints.kubeletEndpoint.Port`), else 10250.
"""

from __future__ import annotations

import ipaddress
import ssl
from typing import Any

import aiohttp

from svc.machinery import status

Obj = dict[str, Any]
PREFERRED_ADDRESS_TYPES = ("Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP")
DEFAULT_KUBELET_PORT = 10250


def kubelet_base_url(node: Obj) -> str:
    """`https://<address>:<port>` of the node's kubelet; a 400 as upstream when it has no address."""
    addresses = {a.get("type"): a.get("address") for a in (node.get("status") or {}).get("addresses") or []}
    address = next((addresses[kind] for kind in PREFERRED_ADDRESS_TYPES if addresses.get(kind)), None)
    name = node["metadata"]["name"]
    if address is None:
        raise status.bad_request(f'no preferred addresses found; known addresses: []: node "{name}"')
    endpoints = (node.get("status") or {}).get("daemonEndpoints") or {}
    port = (endpoints.get("kubeletEndpoint") or {}).get("Port") or DEFAULT_KUBELET_PORT
    try:
        host = f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
    except ValueError:
        host = address
    return f"https://{host}:{port}"


class KubeletClient:
    """One session for every kubelet call of the server (connections are kept alive per node)."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        self._ssl = context

    @property
    def ssl_context(self) -> ssl.SSLContext:
        """The TLS settings for kubelets (and https proxy targets): no verification, as upstream's default."""
        return self._ssl

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=self._ssl))
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
