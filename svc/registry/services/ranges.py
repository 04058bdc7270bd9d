"""`--service-cluster-ip-range` and `--service-node-port-range`, parsed with upstream's rules."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
DEFAULT_CLUSTER_IP_RANGE = "10.0.0.0/24"
DEFAULT_NODE_PORT_RANGE = "30000-32767"


@dataclass(frozen=True)
class ServiceRanges:
    cidrs: tuple[Network, ...]  # the primary first; at most one per IP family
    node_ports: range

    def family(self, network: Network) -> str:
        return "IPv4" if network.version == 4 else "IPv6"

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(self.family(network) for network in self.cidrs)

    def cidr_for(self, family: str) -> Network | None:
        return next((network for network in self.cidrs if self.family(network) == family), None)


def parse_cluster_ip_range(text: str) -> tuple[Network, ...]:
    """One CIDR, or two of different IP families (dual stack); raises ValueError naming the flag."""
    entries = [entry.strip() for entry in text.split(",") if entry.strip()]
    if not 1 <= len(entries) <= 2:
        raise ValueError("--service-cluster-ip-range must not contain more than two entries")
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f'--service-cluster-ip-range: invalid CIDR address: "{entry}"') from None
    if len(networks) == 2 and networks[0].version == networks[1].version:
        raise ValueError(
            "--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family"
        )
    for network in networks:
        if network.num_addresses < 4 if network.version == 4 else network.prefixlen > 126:
            raise ValueError(f"--service-cluster-ip-range: the range {network} is too small")
    return tuple(networks)


def parse_node_port_range(text: str) -> range:
    """`N1-N2` (or a single port), inclusive, as upstream's PortRange."""
    first, sep, last = text.strip().partition("-")
    try:
        low, high = int(first), int(last) if sep else int(first)
    except ValueError:
        raise ValueError(f'invalid port range "{text}"') from None
    if not (0 < low <= high <= 65535):
        raise ValueError(f'invalid port range "{text}"')
    return range(low, high + 1)
