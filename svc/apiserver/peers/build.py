"""One call wires the peer concerns into the server: the endpoint reconciler and the identity lease."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from svc.apiserver.peers.endpoints import EndpointReconciler, build_endpoint_reconciler
from svc.apiserver.peers.identity import IdentityLease, identity_gc_loop, identity_lease_loop

if TYPE_CHECKING:
    from svc.apiserver.server import Server


@dataclass
class Peers:
    reconciler: EndpointReconciler
    identity: IdentityLease | None

    def tasks(self) -> list[asyncio.Task[None]]:
        if self.identity is None:
            return []
        return [
            asyncio.create_task(identity_lease_loop(self.identity), name="identity-lease"),
            asyncio.create_task(identity_gc_loop(self.identity), name="identity-lease-gc"),
        ]


def build_peers(server: Server) -> Peers:
    """Identity leases follow the APIServerIdentity gate (beta, on by default). StorageVersion objects are
    not kept: upstream keeps them only under the StorageVersionAPI gate, alpha and off in 1.36."""
    identity = IdentityLease(server) if server.options.feature_gates.enabled("APIServerIdentity") else None
    return Peers(build_endpoint_reconciler(server), identity)
