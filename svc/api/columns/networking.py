"""Columns of the networking and discovery kinds: ingresses, ingress classes, network policies, endpoint
slices, service CIDRs and IP addresses."""

from __future__ import annotations

from svc.api.columns import descriptions
from svc.api.columns.common import NONE, age_column, field, items, listed, name_column, optional_text, text
from svc.api.columns.selectors import format_selector
from svc.wire.views import Column, Obj

_MAX_HOSTS = 3


def _hosts(ingress: Obj) -> str:
    """Rule hosts until three are listed; a rule after that makes "+ N more..." (N counts every rule
    past the third, with or without a host); `*` when no rule names a host."""
    rules = items(ingress, "spec", "rules")
    hosts: list[str] = []
    more = False
    for rule in rules:
        more = more or len(hosts) == _MAX_HOSTS
        if not more and text(rule, "host"):
            hosts.append(text(rule, "host"))
    if not hosts:
        return "*"
    written = ",".join(hosts)
    return f"{written} + {len(rules) - _MAX_HOSTS} more..." if more else written


def _load_balancer_addresses(obj: Obj) -> str:
    """IPs, else hostnames, of the load balancer ingress points, sorted and without repeats."""
    points = items(obj, "status", "loadBalancer", "ingress")
    return ",".join(sorted({text(point, "ip") or text(point, "hostname") for point in points} - {""}))


def _ingress_ports(ingress: Obj) -> str:
    return "80, 443" if items(ingress, "spec", "tls") else "80"


INGRESS = (
    name_column(),
    Column(
        "Class",
        "string",
        optional_text("spec", "ingressClassName", absent=NONE),
        description="The name of the IngressClass resource that should be used for additional configuration",
    ),
    Column(
        "Hosts",
        "string",
        _hosts,
        description="Hosts that incoming requests are matched against before the ingress rule",
    ),
    Column(
        "Address",
        "string",
        _load_balancer_addresses,
        description="Address is a list containing ingress points for the load-balancer",
    ),
    Column("Ports", "string", _ingress_ports, description="Ports of TLS configurations that open"),
    age_column(),
)


def _ingress_class_parameters(ingress_class: Obj) -> str:
    """`Kind[.apiGroup]/name` of the parameters reference, `<none>` without one."""
    parameters = field(ingress_class, "spec", "parameters")
    if not isinstance(parameters, dict):
        return NONE
    kind = text(parameters, "kind")
    if isinstance(parameters.get("apiGroup"), str):
        kind += "." + parameters["apiGroup"]
    return f"{kind}/{text(parameters, 'name')}"


INGRESS_CLASS = (
    name_column(),
    Column(
        "Controller",
        "string",
        lambda obj: text(obj, "spec", "controller"),
        description="Controller that is responsible for handling this class",
    ),
    Column(
        "Parameters",
        "string",
        _ingress_class_parameters,
        description="A reference to a resource with additional parameters",
    ),
    age_column(),
)

NETWORK_POLICY = (
    name_column(),
    Column(
        "Pod-Selector",
        "string",
        lambda obj: format_selector(field(obj, "spec", "podSelector") or {}),
        description=descriptions.NETWORK_POLICY_POD_SELECTOR,
    ),
    age_column(),
)


def _slice_port(port: Obj) -> str:
    number = field(port, "port")
    if isinstance(number, int) and not isinstance(number, bool):
        return str(number)
    return text(port, "name") if field(port, "name") is not None else "*"


ENDPOINT_SLICE = (
    name_column(),
    Column(
        "AddressType",
        "string",
        lambda obj: text(obj, "addressType"),
        description=descriptions.ENDPOINT_SLICE_ADDRESS_TYPE,
    ),
    Column(
        "Ports",
        "string",
        lambda obj: listed([_slice_port(port) for port in items(obj, "ports")]),
        description=descriptions.ENDPOINT_SLICE_PORTS,
    ),
    Column(
        "Endpoints",
        "string",
        lambda obj: listed(
            [
                address
                for endpoint in items(obj, "endpoints")
                for address in items(endpoint, "addresses")
                if isinstance(address, str)
            ]
        ),
        description=descriptions.ENDPOINT_SLICE_ENDPOINTS,
    ),
    age_column(),
)

SERVICE_CIDR = (
    name_column(),
    Column(
        "CIDRs",
        "string",
        lambda obj: ",".join(cidr for cidr in items(obj, "spec", "cidrs") if isinstance(cidr, str)),
        description=descriptions.SERVICE_CIDR_CIDRS,
    ),
    age_column(),
)


def _parent_ref(address: Obj) -> str:
    """`resource[.group][/namespace]/name` in lower case, `<none>` without a parent."""
    parent = field(address, "spec", "parentRef")
    if not isinstance(parent, dict):
        return NONE
    resource = text(parent, "resource")
    written = (f"{resource}.{text(parent, 'group')}" if text(parent, "group") else resource).lower()
    if text(parent, "namespace"):
        written += "/" + text(parent, "namespace")
    return f"{written}/{text(parent, 'name')}"


IP_ADDRESS = (
    name_column(),
    Column("ParentRef", "string", _parent_ref, description=descriptions.IP_ADDRESS_PARENT_REF),
)
"""Upstream defines these two columns only (its printer also appends an age cell that no column names)."""
