"""The serviceaccount controller: every active namespace has a `default` ServiceAccount.

Upstream `pkg/controller/serviceaccount/serviceaccounts_controller.go`: the key is a namespace; it
is queued when a namespace appears or changes and when a ServiceAccount is deleted, and a sync
creates whichever of the ensured accounts is missing. Terminating namespaces are left alone (the API
server would refuse the create), and a create that finds the account already there is success.
"""

from __future__ import annotations

from svc.client.aio import ApiError, has_cause, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "serviceaccount-controller"
ENSURED = ("default",)


class ServiceAccountController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.namespaces = context.informers.informer("", "v1", "namespaces")
        self.accounts = context.informers.informer("", "v1", "serviceaccounts")
        self.namespaces.add_handler(
            Handler(
                on_add=lambda ns: self.queue.add(ns["metadata"]["name"]),
                on_update=lambda _old, ns: self.queue.add(ns["metadata"]["name"]),
            )
        )
        self.accounts.add_handler(Handler(on_delete=lambda sa: self.queue.add(sa["metadata"].get("namespace", ""))))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, namespace: str) -> None:
        current = self.namespaces.get(namespace)
        if current is None or (current.get("status") or {}).get("phase", "Active") != "Active":
            return
        present = {sa["metadata"]["name"] for sa in self.accounts.by_index(NAMESPACE_INDEX, namespace)}
        for name in ENSURED:
            if name in present:
                continue
            body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}
            try:
                await self.context.client.create(resource_path("", "v1", "serviceaccounts", namespace=namespace), body)
            except ApiError as error:
                if error.reason == "AlreadyExists" or has_cause(error, "NamespaceTerminating"):
                    continue
                raise
