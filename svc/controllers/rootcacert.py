"""The root-ca-certificate-publisher: the API server's CA bundle as a ConfigMap in every namespace.

Pods verify the API server with this bundle (`kube-root-ca.crt` upstream, `svc-root-ca.crt` under the
svc profile, key `ca.crt`). Upstream `pkg/controller/certificates/rootcacertpublisher`: the key is a
namespace, queued when the namespace appears or changes and when its ConfigMap is changed or deleted
by someone else; a sync creates the ConfigMap or puts back its data and description annotation,
leaving any other labels and annotations a user added.
"""

from __future__ import annotations

from typing import Any

from svc.client.aio import ApiError, has_cause, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "root-ca-certificate-publisher-controller"
DATA_KEY = "ca.crt"
DESCRIPTION = (
    "The CA bundle that verifies the API server through its in-cluster endpoints "
    "(the cluster IP of its Service and its in-cluster DNS name)."
)


class RootCACertPublisher:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.name = context.profile.root_ca_configmap
        self.annotation = context.profile.label("kubernetes.io/description")
        self.data = {DATA_KEY: context.root_ca.decode()}
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.namespaces = context.informers.informer("", "v1", "namespaces")
        self.configmaps = context.informers.informer("", "v1", "configmaps")
        self.namespaces.add_handler(
            Handler(
                on_add=lambda ns: self.queue.add(ns["metadata"]["name"]),
                on_update=lambda _old, ns: self.queue.add(ns["metadata"]["name"]),
            )
        )
        self.configmaps.add_handler(Handler(on_update=lambda _old, cm: self._ours(cm), on_delete=self._ours))

    def _ours(self, configmap: dict[str, Any]) -> None:
        metadata = configmap.get("metadata") or {}
        if metadata.get("name") == self.name:
            self.queue.add(metadata.get("namespace", ""))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, namespace: str) -> None:
        current_ns = self.namespaces.get(namespace)
        if current_ns is None or (current_ns.get("status") or {}).get("phase", "Active") != "Active":
            return
        collection = resource_path("", "v1", "configmaps", namespace=namespace)
        current = self.configmaps.get(f"{namespace}/{self.name}")
        if current is None:
            body = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": self.name, "annotations": {self.annotation: DESCRIPTION}},
                "data": self.data,
            }
            try:
                await self.context.client.create(collection, body)
            except ApiError as error:
                if error.reason != "AlreadyExists" and not has_cause(error, "NamespaceTerminating"):
                    raise
            return
        annotations = (current.get("metadata") or {}).get("annotations") or {}
        if current.get("data") == self.data and annotations.get(self.annotation) == DESCRIPTION:
            return
        metadata = dict(current["metadata"], annotations={**annotations, self.annotation: DESCRIPTION})
        updated = {**current, "metadata": metadata, "data": self.data}
        updated.pop("binaryData", None)
        await self.context.client.update(f"{collection}/{self.name}", updated)
