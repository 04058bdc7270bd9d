"""Where a `*/proxy` request goes: upstream's ResourceLocation for pods, services and nodes.

The name segment is `name`, `name:port` or `scheme:name:port` (scheme http or https). A pod is
reached at its IP (the port defaults to the first declared container port); a service at a ready
endpoint of its EndpointSlices for the named port (503 `no endpoints available for service "x"`
when none); a node at its kubelet.
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
    """Upstream refuses loopback and link-local targets ("address not allowed")."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise status.bad_request("address not allowed") from None
    if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast:
        raise status.bad_request("address not allowed")


async def pod_location(scope: Scope, scheme: str, name: str, port: str) -> Location:
    pod = await scope.store.get(scope.namespace, name)
    if not port:
        declared = [p for c in pod["spec"].get("containers") or [] for p in c.get("ports") or []]
        port = str(declared[0]["containerPort"]) if declared else "80"
    address = (pod.get("status") or {}).get("podIP", "")
    _proxyable(address)
    return Location(scheme or "http", address, _port_number(port, "pod", scope.name))


async def service_location(scope: Scope, scheme: str, name: str, port: str) -> Location:
    service = await scope.store.get(scope.namespace, name)
    ports = (service.get("spec") or {}).get("ports") or []
    chosen = next(
        (p for p in ports if port in (p.get("name", ""), str(p.get("port"))) or (not port and len(ports) == 1)), None
    )
    if chosen is None:
        raise status.service_unavailable(f'no service port "{port}" found for service "{name}"')
    slices = await scope.server.store_for("discovery.k8s.io", "endpointslices").list(
        scope.namespace, ListOptions(label_selector=parse_label_selector(f"kubernetes.io/service-name={name}"))
    )
    for endpoint_slice in slices.get("items") or []:
        slice_port = next(
            (p for p in endpoint_slice.get("ports") or [] if (p.get("name") or "") == (chosen.get("name") or "")), None
        )
        if slice_port is None or not slice_port.get("port"):
            continue
        for endpoint in endpoint_slice.get("endpoints") or []:
            if (endpoint.get("conditions") or {}).get("ready", True) and endpoint.get("addresses"):
                return Location(scheme or "http", endpoint["addresses"][0], int(slice_port["port"]))
    raise status.service_unavailable(f'no endpoints available for service "{name}"')


async def node_location(scope: Scope, scheme: str, name: str, port: str) -> Location:
    node = await scope.store.get("", name)
    base = kubelet_base_url(node)
    host, _, kubelet_port = base.removeprefix("https://").rpartition(":")
    return Location(scheme or "https", host.strip("[]"), int(port) if port.isdigit() else int(kubelet_port), True)
