"""The podgroup-protection-controller: a deleted PodGroup stays while active pods still name it.

Upstream `pkg/controller/podgroupprotection` (GenericWorkload gate, alpha): the PodGroupProtection
admission plugin stamps `scheduling.k8s.io/podgroup-protection` (profile spelling of the group) on each
new PodGroup; this controller only removes it, once the PodGroup is being deleted and no pod of its
namespace that has not Succeeded or Failed names it in `spec.schedulingGroup.podGroupName`. A pod
finishing, going away, or replaced by a same-named pod re-queues the PodGroup it named.
"""

from __future__ import annotations

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import protection
from svc.controllers.context import ControllerContext

NAME = "podgroup-protection-controller"
GATE = "GenericWorkload"
GROUP = "scheduling.k8s.io"
VERSION = "v1alpha2"
Obj = protection.Obj


def group_key(pod: Obj) -> str | None:
    """`namespace/podgroup` of the PodGroup a pod names, if any."""
    name = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return f"{pod['metadata'].get('namespace', '')}/{name}" if name else None


def terminated(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


class PodGroupProtectionController:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.group = context.profile.group(GROUP)
        self.finalizer = f"{self.group}/podgroup-protection"
        self.queue: RateLimitingQueue[str] = RateLimitingQueue("podgroupprotection", clock=context.clock)
        self.podgroups = context.informers.informer(GROUP, VERSION, "podgroups")
        self.pods = context.informers.informer("", "v1", "pods")
        self.podgroups.add_handler(
            Handler(on_add=self._group_changed, on_update=lambda _o, new: self._group_changed(new))
        )
        self.pods.add_handler(
            Handler(
                on_add=lambda pod: self._pod_changed(None, pod),
                on_update=self._pod_changed,
                on_delete=lambda pod: self._pod_changed(pod, None),
            )
        )

    def _group_changed(self, podgroup: Obj) -> None:
        if protection.is_deletion_candidate(podgroup, self.finalizer):
            self.queue.add(key_of(podgroup))

    def _pod_changed(self, old: Obj | None, new: Obj | None) -> None:
        """Only changes that can free a PodGroup: a pod finished, gone, or replaced under its name."""
        if new is not None and terminated(new):
            self._queue(group_key(new))
        if old is not None and (new is None or old["metadata"].get("uid") != new["metadata"].get("uid")):
            self._queue(group_key(old))

    def _queue(self, key: str | None) -> None:
        if key is not None:
            self.queue.add(key)

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    def has_active_pods(self, key: str) -> bool:
        namespace = key.partition("/")[0]
        return any(
            group_key(pod) == key and not terminated(pod) for pod in self.pods.by_index(NAMESPACE_INDEX, namespace)
        )

    async def sync(self, key: str) -> None:
        podgroup = self.podgroups.get(key)
        if podgroup is None or not protection.is_deletion_candidate(podgroup, self.finalizer):
            return
        if self.has_active_pods(key):
            return
        namespace, _, name = key.partition("/")
        path = resource_path(self.group, VERSION, "podgroups", namespace=namespace, name=name)
        try:
            await self.context.client.update(path, protection.without_finalizer(podgroup, self.finalizer))
        except ApiError as error:
            if error.reason != "NotFound":
                raise
