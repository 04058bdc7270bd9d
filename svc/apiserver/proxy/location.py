"""Where a `*/proxy` request goes: upstream's ResourceLocation for pods, services and nodes.

The name segment is `name`, `name:port` or `scheme:name:port` (scheme http or https). A pod is
reached at its IP (the port defaults to the first declared container port); a service at a ready
endpoint of its EndpointSlices carrying the service port's name (a port number is first turned into
that name; 503 `no service port N found for service "x"` or `no endpoints available for service "x"`
as upstream); a node at its kubelet.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from svc.apiserver.handlers.scope import Scope
from svc.apiserver.kubelet_client import kubelet_base_url
from svc.machinery import status
from svc.machinery.labels import parse_label_selector
from svc.registry.options import ListOptions

Obj = dict[str, Any]


@dataclass(frozen=True)
class Location:
    scheme: str
    host: str
    port: int
    via_kubelet: bool = False


def split_scheme_name_port(text: str) -> tuple[str, str, str] | None:
    """(scheme, name, port) of `[scheme:]name[:port]`, None when malformed (upstream's SplitSchemeNamePort)."""
    parts = text.split(":")
    if len(parts) == 1:
        scheme, name, port = "", parts[0], ""
    elif len(parts) == 2:
        scheme, name, port = "", parts[0], parts[1]
    elif len(parts) == 3:
        scheme, name, port = parts
    else:
        return None
    if not name or scheme not in ("", "http", "https"):
        return None
    return scheme, name, port


def _port_number(text: str, kind: str, ident: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise status.bad_request(f"invalid {kind} request {ident!r}".replace("'", '"'))
    return int(text)


def _proxyable(address: str) -> None:
    """Upstream proxies only to a global unicast pod IP (Go's sense: not loopback, link-local,
    multicast, unspecified or broadcast): "address not allowed" otherwise."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise status.bad_request("address not allowed") from None
    if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast or address == "255.255.255.255":
        raise status.bad_request("address not allowed")


async def pod_location(scope: Scope, scheme: str, name: str, port: str) -> Location:
    pod = await scope.store.get(scope.namespace, name)
    if not port:
        declared = [p for c in pod["spec"].get("containers") or [] for p in c.get("ports") or []]
        port = str(declared[0]["containerPort"]) if declared else ("443" if scheme == "https" else "80")
    addresses = (pod.get("status") or {}).get("podIPs") or []
    address = addresses[0].get("ip", "") if addresses else ""
    _proxyable(address)
    return Location(scheme or "http", address, _port_number(port, "pod", scope.name))


async def service_location(scope: Scope, scheme: str, name: str, port: str) -> Location:
    """A ready endpoint of the service port named `port` (a number names the port that has it)."""
    port_name = port
    if port.isdigit():
        service = await scope.store.get(scope.namespace, name)
        ports = (service.get("spec") or {}).get("ports") or []
        chosen = next((p for p in ports if str(p.get("port")) == port), None)
        if chosen is None:
            raise status.service_unavailable(f'no service port {port} found for service "{name}"')
        port_name = chosen.get("name") or ""
    selector = parse_label_selector(f"kubernetes.io/service-name={name}")
    slices = await scope.server.store_for("discovery.k8s.io", "endpointslices").list(
        scope.namespace, ListOptions(label_selector=selector)
    )
    ready = [
        (endpoint_slice, endpoint)
        for endpoint_slice in slices.get("items") or []
        for endpoint in endpoint_slice.get("endpoints") or []
        if (endpoint.get("conditions") or {}).get("ready", True) is not False and endpoint.get("addresses")
    ]
    if not ready:
        raise status.service_unavailable(f'no endpoints available for service "{name}"')
    for endpoint_slice, endpoint in ready:
        for slice_port in endpoint_slice.get("ports") or []:
            if (slice_port.get("name") or "") == port_name and slice_port.get("port"):
                return Location(scheme or "http", endpoint["addresses"][0], int(slice_port["port"]))
    raise status.service_unavailable(f'no endpoints available for service "{scope.name}"')


async def node_location(scope: Scope, scheme: str, name: str, port: str) -> Location:
    node = await scope.store.get("", name)
    base = kubelet_base_url(node)
    host, _, kubelet_port = base.removeprefix("https://").rpartition(":")
    return Location(scheme or "https", host.strip("[]"), int(port) if port.isdigit() else int(kubelet_port), True)
