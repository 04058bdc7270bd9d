"""The Node authorizer as the server runs it: its graph filled from the stores and kept current.

Upstream's Node authorizer watches pods, persistent volumes, volume attachments and resource slices
through informers; here the same resources are followed through their stores' watch caches. A
resource whose group is not served (resource.k8s.io is off by default) simply adds nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from svc.api.brand import Profile
from svc.apiserver.authz.follow import Followers
from svc.apiserver.authz.node.authorizer import NodeAuthorizer
from svc.apiserver.authz.node.graph import ATTACHMENTS, PODS, SLICES, VOLUMES, NodeGraph
from svc.apiserver.authz.rbac.bootstrap import cluster_roles
from svc.apiserver.authz.rbac.rules import rules_of
from svc.machinery import status
from svc.registry.store import GenericStore

log = logging.getLogger(__name__)

# (upstream group, resource) of everything the graph follows.
FOLLOWED = (("", PODS), ("", VOLUMES), ("storage.k8s.io", ATTACHMENTS), ("resource.k8s.io", SLICES))
NODE_ROLE = "system:node"


class NodePolicy:
    def __init__(self, profile: Profile) -> None:
        self.graph = NodeGraph()
        role = next(role for role in cluster_roles(profile) if role["metadata"]["name"] == NODE_ROLE)
        self.authorizer = NodeAuthorizer(self.graph, rules_of(role), profile)
        self._followers = Followers()

    async def start(self, store_for: Callable[[str, str], GenericStore]) -> None:
        """Load the graph, then follow every change of the resources it is built from."""
        stores = []
        for group, resource in FOLLOWED:
            try:
                stores.append(store_for(group, resource))
            except status.StatusError:
                log.info("the Node authorizer does not follow %s: not served", resource)
        await self._followers.add(self.graph, *stores)

    async def stop(self) -> None:
        await self._followers.stop()
