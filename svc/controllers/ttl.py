"""The ttl controller: every node is annotated with how long its agent may cache objects, by cluster size.

Upstream `pkg/controller/ttl`: the annotation `node.alpha.kubernetes.io/ttl` (profile spelling) holds
0 s up to 100 nodes, then 15 s, 30 s, 60 s and 300 s as the cluster grows past 100, 500, 1000 and
2000 nodes; stepping back down waits until the count is under 90, 450 and 900 and 1800, so a cluster
near a boundary does not flap.
"""

from __future__ import annotations

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "ttl-controller"
# (size at which the step is left downwards, size past which it is left upwards, TTL seconds)
BOUNDARIES = ((0, 100, 0), (90, 500, 15), (450, 1000, 30), (900, 2000, 60), (1800, 2**31 - 1, 300))


class TTLController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.annotation = context.profile.label("node.alpha.kubernetes.io/ttl")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.nodes = context.informers.informer("", "v1", "nodes")
        self.node_count = 0
        self.step = 0
        self.nodes.add_handler(
            Handler(
                on_add=self._added,
                on_update=lambda _old, node: self.queue.add(node["metadata"]["name"]),
                on_delete=self._deleted,
            )
        )

    @property
    def desired_ttl(self) -> int:
        return BOUNDARIES[self.step][2]

    def _added(self, node: dict) -> None:
        self.node_count += 1
        if self.node_count > BOUNDARIES[self.step][1]:
            self.step += 1
            self._queue_all()
        self.queue.add(node["metadata"]["name"])

    def _deleted(self, _node: dict) -> None:
        self.node_count -= 1
        if self.node_count < BOUNDARIES[self.step][0]:
            self.step -= 1
            self._queue_all()

    def _queue_all(self) -> None:
        for node in self.nodes.list():
            self.queue.add(node["metadata"]["name"])

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, name: str) -> None:
        node = self.nodes.get(name)
        if node is None:
            return
        wanted = str(self.desired_ttl)
        if (node["metadata"].get("annotations") or {}).get(self.annotation) == wanted:
            return
        patch = {"metadata": {"annotations": {self.annotation: wanted}}}
        try:
            await self.context.client.patch(resource_path("", "v1", "nodes", name=name), patch)
        except ApiError as error:
            if error.reason != "NotFound":
                raise
