"""A cluster CIDR cut into equal node subnets, each free or taken: upstream's `cidrset.CidrSet`.

Allocation goes round-robin from the subnet after the last one handed out, so a subnet released by
a deleted node is not handed to the next node at once. Occupying marks every subnet a given range
overlaps (a node's existing podCIDR, or the service range carved out of the cluster range).
"""

from __future__ import annotations

import ipaddress

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
# Upstream caps a set at 2^16 subnets.
MAX_PREFIX_DIFFERENCE = 16


class CIDRSetError(ValueError):
    pass


class CIDRSet:
    def __init__(self, cluster: Network, node_mask: int) -> None:
        if node_mask < cluster.prefixlen:
            raise CIDRSetError(f"node mask size {node_mask} is smaller than the cluster mask size {cluster.prefixlen}")
        if node_mask - cluster.prefixlen > MAX_PREFIX_DIFFERENCE:
            raise CIDRSetError("New CIDR set failed; the node CIDR size is too big")
        self.cluster = cluster
        self.node_mask = node_mask
        self.size = 1 << (node_mask - cluster.prefixlen)
        self.taken: set[int] = set()
        self.next_candidate = 0

    def _subnet(self, index: int) -> Network:
        step = 1 << (self.cluster.max_prefixlen - self.node_mask)
        address = self.cluster.network_address + index * step
        return ipaddress.ip_network(f"{address}/{self.node_mask}")

    def allocate_next(self) -> Network:
        for offset in range(self.size):
            index = (self.next_candidate + offset) % self.size
            if index not in self.taken:
                self.taken.add(index)
                self.next_candidate = (index + 1) % self.size
                return self._subnet(index)
        raise CIDRSetError(
            "CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range"
        )

    def _indexes(self, cidr: Network) -> range:
        if cidr.version != self.cluster.version or not (self.cluster.overlaps(cidr)):
            raise CIDRSetError(f"cidr {cidr} is out the range of cluster cidr {self.cluster}")
        start = max(int(cidr.network_address), int(self.cluster.network_address))
        end = min(int(cidr.broadcast_address), int(self.cluster.broadcast_address))
        shift = self.cluster.max_prefixlen - self.node_mask
        base = int(self.cluster.network_address)
        return range((start - base) >> shift, ((end - base) >> shift) + 1)

    def occupy(self, cidr: Network) -> None:
        self.taken.update(self._indexes(cidr))

    def release(self, cidr: Network) -> None:
        self.taken.difference_update(self._indexes(cidr))
