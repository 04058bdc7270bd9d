"""The clusterrole-aggregation controller: a ClusterRole with an `aggregationRule` holds the rules of
every ClusterRole its selectors match.

Upstream `pkg/controller/clusterroleaggregation`: any ClusterRole change may change what some
aggregating role should hold, so every change queues every aggregating role. A sync gathers the
matching roles' rules (by role name, each rule once, the role itself excluded) and writes them only
when they differ from what is stored. The API server pre-aggregates its bootstrap roles so they work
before this controller runs; user-created aggregating roles are filled here.
"""

from __future__ import annotations

from typing import Any

from svc.apiserver.authz.rbac.aggregation import aggregated_rules
from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "clusterrole-aggregation-controller"
GROUP = "rbac.authorization.k8s.io"

Obj = dict[str, Any]


def _aggregating(role: Obj) -> bool:
    return isinstance(role.get("aggregationRule"), dict)


class ClusterRoleAggregationController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.roles = context.informers.informer(GROUP, "v1", "clusterroles")
        self.roles.add_handler(
            Handler(
                on_add=lambda _role: self._queue_aggregating(),
                on_update=lambda _old, _role: self._queue_aggregating(),
                on_delete=lambda _role: self._queue_aggregating(),
            )
        )

    def _queue_aggregating(self) -> None:
        for role in self.roles.list():
            if _aggregating(role):
                self.queue.add(role["metadata"]["name"])

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, name: str) -> None:
        role = self.roles.get(name)
        if role is None or not _aggregating(role):
            return
        rules = aggregated_rules(role, self.roles.list())
        if rules == (role.get("rules") or []):
            return
        path = resource_path(self.context.profile.group(GROUP), "v1", "clusterroles", name=name)
        try:
            await self.context.client.update(path, {**role, "rules": rules})
        except ApiError as error:
            if error.reason == "NotFound":
                return
            raise
