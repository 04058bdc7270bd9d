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
    identity: IdentityLease

    def tasks(self) -> list[asyncio.Task[None]]:
        return [
            asyncio.create_task(identity_lease_loop(self.identity), name="identity-lease"),
            asyncio.create_task(identity_gc_loop(self.identity), name="identity-lease-gc"),
        ]


def build_peers(server: Server) -> Peers:
    return Peers(build_endpoint_reconciler(server), IdentityLease(server))
