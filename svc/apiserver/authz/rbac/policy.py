"""RBAC as the server runs it: the bootstrap policy reconciled at start, the index filled from the
stores and kept current, the authorizer reading it and the escalation check guarding writes to it.

The index runs whatever `--authorization-mode` says: escalation checks read it even when RBAC does not
authorize requests (with AlwaysAllow they never get that far), as upstream's RBAC storage does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from svc.api.brand import Profile
from svc.apiserver.authz.follow import Followers
from svc.apiserver.authz.rbac.authorizer import RBACAuthorizer
from svc.apiserver.authz.rbac.bootstrap import RBAC_GROUP, reconcile
from svc.apiserver.authz.rbac.index import PolicyIndex
from svc.machinery import status
from svc.registry.admission import UserInfo
from svc.registry.store import GenericStore

log = logging.getLogger(__name__)

RESOURCES = ("clusterroles", "roles", "clusterrolebindings", "rolebindings")


class RbacPolicy:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.index = PolicyIndex(profile.group(RBAC_GROUP))
        self.authorizer = RBACAuthorizer(self.index)
        self._followers = Followers()
        self.bootstrapped = False
        """Whether the bootstrap policy has been reconciled (upstream's `rbac/bootstrap-roles` hook)."""

    async def start(self, store_for: Callable[[str, str], GenericStore], user: UserInfo) -> None:
        """Reconcile the bootstrap policy, then load the index and follow every change."""
        try:
            stores = {name: store_for(RBAC_GROUP, name) for name in RESOURCES}
        except status.StatusError:
            log.warning("the RBAC API group is not served: RBAC grants nothing")
            self.bootstrapped = True
            return
        await reconcile(stores, self.profile, user)
        self.bootstrapped = True
        await self._followers.add(self.index, *stores.values())

    async def stop(self) -> None:
        await self._followers.stop()
