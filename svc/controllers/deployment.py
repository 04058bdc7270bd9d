"""The deployment controller: roll a Deployment's pod template out through replica sets.

Upstream `pkg/controller/deployment`. A sync claims the replica sets matching the selector, finds the
one whose template equals the Deployment's (ignoring `pod-template-hash`) or creates it (named
`<deployment>-<hash>`, revision one past the newest old one), then:
- RollingUpdate: scales the new set up within `maxSurge`, then the old ones down (unhealthy first)
  while at least `replicas - maxUnavailable` pods stay available;
- Recreate: scales the old sets to zero, waits for their pods to be gone, then scales the new set up;
- paused, or only `replicas` changed: scales without rolling (`deployment_math.scale_plan`: one active
  set takes it all; during a rollout the change is spread over the active sets in proportion);
and writes the status and the `Available` and `Progressing` conditions with upstream's reasons and
messages, including `ProgressDeadlineExceeded`. Old sets beyond `revisionHistoryLimit` are deleted
once the rollout is complete, so `kubectl rollout history` and `rollout undo` see the kept revisions.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import deployment_math as math
from svc.controllers.context import ControllerContext
from svc.controllers.controller_ref import claim, controller_of, owner_reference, selector_of

NAME = "deployment-controller"
Obj = dict[str, Any]
_SKIPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


class DeploymentController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        profile = context.profile
        self.apps = profile.group("apps")
        self.events = context.recorder(NAME)
        self.revision_key = profile.label("deployment.kubernetes.io/revision")
        self.desired_key = profile.label("deployment.kubernetes.io/desired-replicas")
        self.max_key = profile.label("deployment.kubernetes.io/max-replicas")
        self.skipped = {
            self.revision_key,
            self.desired_key,
            self.max_key,
            profile.label("deployment.kubernetes.io/revision-history"),
            profile.last_applied_annotation,
            *_SKIPPED_ANNOTATIONS,
        }
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.deployments: Informer = context.informers.informer("apps", "v1", "deployments")
        self.sets: Informer = context.informers.informer("apps", "v1", "replicasets")
        self.pods: Informer = context.informers.informer("", "v1", "pods")
        enqueue = lambda obj: self.queue.add(key_of(obj))  # noqa: E731
        self.deployments.add_handler(
            Handler(on_add=enqueue, on_update=lambda _old, new: enqueue(new), on_delete=enqueue)
        )
        on_set = lambda rs: self._enqueue_owner(rs)  # noqa: E731
        self.sets.add_handler(
            Handler(on_add=on_set, on_update=lambda old, new: (on_set(old), on_set(new)), on_delete=on_set)
        )
        self.pods.add_handler(Handler(on_delete=self._pod_deleted))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    # -- events -------------------------------------------------------------------------------
    def _enqueue_owner(self, rs: Obj) -> None:
        namespace = rs["metadata"]["namespace"]
        ref = controller_of(rs)
        if ref is not None:
            if ref.get("kind") == "Deployment":
                self.queue.add(f"{namespace}/{ref.get('name')}")
            return
        labels = rs["metadata"].get("labels") or {}
        for deployment in self.deployments.by_index(NAMESPACE_INDEX, namespace):
            if selector_of(deployment).matches(labels):
                self.queue.add(key_of(deployment))

    def _pod_deleted(self, pod: Obj) -> None:
        """Recreate waits for the old pods to be gone: each one gone may let it go on."""
        ref = controller_of(pod)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = self.sets.get(f"{pod['metadata']['namespace']}/{ref.get('name')}")
        if rs is not None:
            self._enqueue_owner(rs)

    # -- paths and writes ---------------------------------------------------------------------
    def _path(self, resource: str, namespace: str, name: str = "", subresource: str = "") -> str:
        return resource_path(self.apps, "v1", resource, namespace=namespace, name=name, subresource=subresource)

    def _set_path(self, rs: Obj) -> str:
        return self._path("replicasets", rs["metadata"]["namespace"], rs["metadata"]["name"])

    async def _scale(self, deployment: Obj, rs: Obj, replicas: int) -> Obj:
        """Set a replica set's size and its desired/max annotations (upstream's `scaleReplicaSet`)."""
        surge, _ = math.fenceposts(deployment)
        desired = deployment["spec"].get("replicas", 1)
        annotations = {
            **(rs["metadata"].get("annotations") or {}),
            self.desired_key: str(desired),
            self.max_key: str(desired + surge),
        }
        if math.replicas_of(rs) == replicas and annotations == (rs["metadata"].get("annotations") or {}):
            return rs
        updated = {
            **rs,
            "metadata": {**rs["metadata"], "annotations": annotations},
            "spec": {**rs["spec"], "replicas": replicas},
        }
        written = await self.context.client.update(self._set_path(rs), updated)
        old = math.replicas_of(rs)
        if old != replicas:
            direction = "up" if old < replicas else "down"
            message = f"Scaled {direction} replica set {rs['metadata']['name']} from {old} to {replicas}"
            await self._event(deployment, "Normal", "ScalingReplicaSet", message)
        return written

    async def _event(self, deployment: Obj, event_type: str, reason: str, message: str) -> None:
        await self.events.event(deployment, "Deployment", f"{self.apps}/v1", event_type, reason, message)

    # -- sync ---------------------------------------------------------------------------------
    async def sync(self, key: str) -> None:
        deployment = self.deployments.get(key)
        if deployment is None:
            return
        deployment = copy.deepcopy(deployment)
        namespace = deployment["metadata"]["namespace"]
        reference = owner_reference(deployment, f"{self.apps}/v1", "Deployment")
        sets = await claim(
            self.context.client,
            deployment,
            self.sets.by_index(NAMESPACE_INDEX, namespace),
            selector_of(deployment),
            reference,
            self._set_path,
        )
        try:
            if deployment["metadata"].get("deletionTimestamp"):
                await self._write_status(deployment, sets, self._find_new(deployment, sets))
            elif deployment["spec"].get("paused") or self._scaling_only(deployment, sets):
                await self._scale_only(deployment, sets)
            elif (deployment["spec"].get("strategy") or {}).get("type") == "Recreate":
                await self._recreate(deployment, sets, reference)
            else:
                await self._rolling(deployment, sets, reference)
        except ApiError as error:
            if error.reason not in ("Conflict", "NotFound", "AlreadyExists"):
                raise
            self.queue.add_rate_limited(key)

    def _find_new(self, deployment: Obj, sets: list[Obj]) -> Obj | None:
        matching = [
            rs for rs in sets if math.same_template(rs["spec"].get("template") or {}, deployment["spec"]["template"])
        ]
        return min(
            matching, key=lambda rs: (rs["metadata"].get("creationTimestamp", ""), rs["metadata"]["name"]), default=None
        )

    def _revision(self, rs: Obj) -> int:
        text = (rs["metadata"].get("annotations") or {}).get(self.revision_key, "0")
        return int(text) if text.isdigit() else 0

    def _scaling_only(self, deployment: Obj, sets: list[Obj]) -> bool:
        """Upstream's `isScalingEvent`: an active set's desired-replicas annotation differs from the spec."""
        desired = str(deployment["spec"].get("replicas", 1))
        active = [rs for rs in sets if math.replicas_of(rs) > 0]
        return any((rs["metadata"].get("annotations") or {}).get(self.desired_key, desired) != desired for rs in active)

    async def _new_set(
        self, deployment: Obj, sets: list[Obj], reference: Obj, *, create: bool
    ) -> tuple[Obj | None, list[Obj]]:
        """The new replica set (created when asked and missing) with its revision synced, and the old ones."""
        new = self._find_new(deployment, sets)
        old = [rs for rs in sets if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        revision = max((self._revision(rs) for rs in old), default=0) + 1
        if new is not None:
            if self._revision(new) < revision or self._annotations_missing(deployment, new):
                annotations = {**self._copied_annotations(deployment), **(new["metadata"].get("annotations") or {})}
                annotations[self.revision_key] = str(max(revision, self._revision(new)))
                new = await self.context.client.update(
                    self._set_path(new), {**new, "metadata": {**new["metadata"], "annotations": annotations}}
                )
        elif create:
            new = await self._create_new_set(deployment, sets, reference, revision)
        if new is not None:
            await self._record_revision(deployment, new)
        return new, old

    def _copied_annotations(self, deployment: Obj) -> dict[str, str]:
        annotations = deployment["metadata"].get("annotations") or {}
        return {key: value for key, value in annotations.items() if key not in self.skipped}

    def _annotations_missing(self, deployment: Obj, rs: Obj) -> bool:
        present = rs["metadata"].get("annotations") or {}
        return any(present.get(key) != value for key, value in self._copied_annotations(deployment).items())

    async def _create_new_set(self, deployment: Obj, sets: list[Obj], reference: Obj, revision: int) -> Obj:
        spec = deployment["spec"]
        collisions = (deployment.get("status") or {}).get("collisionCount") or 0
        hash_value = math.template_hash(spec["template"], collisions)
        template = copy.deepcopy(spec["template"])
        template.setdefault("metadata", {})
        template["metadata"]["labels"] = {**(template["metadata"].get("labels") or {}), math.HASH_LABEL: hash_value}
        selector = copy.deepcopy(spec.get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), math.HASH_LABEL: hash_value}
        surge, _ = math.fenceposts(deployment)
        desired = spec.get("replicas", 1)
        annotations = {
            **self._copied_annotations(deployment),
            self.revision_key: str(revision),
            self.desired_key: str(desired),
            self.max_key: str(desired + surge),
        }
        body: Obj = {
            "apiVersion": f"{self.apps}/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{deployment['metadata']['name']}-{hash_value}",
                "namespace": deployment["metadata"]["namespace"],
                "labels": dict(template["metadata"]["labels"]),
                "annotations": annotations,
                "ownerReferences": [reference],
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": spec.get("minReadySeconds") or 0,
                "selector": selector,
                "template": template,
            },
        }
        body["spec"]["replicas"] = math.new_replicas(deployment, sets, body)
        try:
            created = await self.context.client.create(self._path("replicasets", body["metadata"]["namespace"]), body)
        except ApiError as error:
            if error.reason != "AlreadyExists":
                message = f'Failed to create new replica set "{body["metadata"]["name"]}": {error}'
                await self._event(deployment, "Warning", "FailedCreate", message)
                raise
            await self._count_collision(deployment)
            raise
        if body["spec"]["replicas"] > 0:
            message = f"Scaled up replica set {created['metadata']['name']} from 0 to {body['spec']['replicas']}"
            await self._event(deployment, "Normal", "ScalingReplicaSet", message)
        status = deployment.setdefault("status", {})
        math.set_condition(
            status,
            "Progressing",
            "True",
            "NewReplicaSetCreated",
            f'Created new replica set "{created["metadata"]["name"]}"',
            self.context.clock.wall(),
        )
        return created

    async def _count_collision(self, deployment: Obj) -> None:
        """A set of the hashed name exists with another template: the next hash takes a salt."""
        status = dict(deployment.get("status") or {})
        status["collisionCount"] = (status.get("collisionCount") or 0) + 1
        metadata = deployment["metadata"]
        await self.context.client.update(
            self._path("deployments", metadata["namespace"], metadata["name"], "status"),
            {**deployment, "status": status},
        )

    async def _record_revision(self, deployment: Obj, new: Obj) -> None:
        revision = (new["metadata"].get("annotations") or {}).get(self.revision_key, "")
        annotations = deployment["metadata"].get("annotations") or {}
        if not revision or annotations.get(self.revision_key) == revision:
            return
        metadata = deployment["metadata"]
        patch = {"metadata": {"annotations": {self.revision_key: revision}}}
        updated = await self.context.client.patch(
            self._path("deployments", metadata["namespace"], metadata["name"]), patch
        )
        deployment["metadata"] = {**deployment["metadata"], "annotations": {**annotations, self.revision_key: revision}}
        deployment["metadata"]["resourceVersion"] = updated.get("metadata", {}).get(
            "resourceVersion", metadata.get("resourceVersion")
        )

    async def _rolling(self, deployment: Obj, sets: list[Obj], reference: Obj) -> None:
        new, old = await self._new_set(deployment, sets, reference, create=True)
        assert new is not None
        desired = deployment["spec"].get("replicas", 1)
        if math.replicas_of(new) != desired:
            target = desired if math.replicas_of(new) > desired else math.new_replicas(deployment, [*old, new], new)
            if target != math.replicas_of(new):
                await self._scale(deployment, new, target)
                await self._write_status(deployment, [*old, new], new)
                return
        if await self._scale_down_old(deployment, old, new):
            await self._write_status(deployment, [*old, new], new)
            return
        status = await self._write_status(deployment, [*old, new], new)
        if math.complete(deployment, status):
            await self._clean_history(deployment, old)

    async def _scale_down_old(self, deployment: Obj, old: list[Obj], new: Obj) -> bool:
        """Upstream's `reconcileOldReplicaSets`: unhealthy old pods first, then as availability allows."""
        old_count = sum(math.replicas_of(rs) for rs in old)
        if old_count == 0:
            return False
        desired = deployment["spec"].get("replicas", 1)
        min_available = desired - math.max_unavailable(deployment)
        all_count = old_count + math.replicas_of(new)
        new_unavailable = math.replicas_of(new) - math.status_count(new, "availableReplicas")
        budget = all_count - min_available - new_unavailable
        if budget <= 0:
            return False
        oldest_first = sorted(old, key=lambda rs: (rs["metadata"].get("creationTimestamp", ""), rs["metadata"]["name"]))
        scaled = 0
        sizes = {rs["metadata"]["uid"]: math.replicas_of(rs) for rs in oldest_first}
        for rs in oldest_first:
            unhealthy = sizes[rs["metadata"]["uid"]] - math.status_count(rs, "availableReplicas")
            if scaled >= budget or sizes[rs["metadata"]["uid"]] == 0 or unhealthy <= 0:
                continue
            step = min(budget - scaled, unhealthy)
            sizes[rs["metadata"]["uid"]] -= step
            scaled += step
        available = sum(math.status_count(rs, "availableReplicas") for rs in [*old, new])
        allowed = available - min_available
        removed = 0
        for rs in oldest_first:
            uid = rs["metadata"]["uid"]
            if removed >= allowed:
                break
            step = min(sizes[uid], allowed - removed)
            sizes[uid] -= step
            removed += step
        changed = [rs for rs in oldest_first if sizes[rs["metadata"]["uid"]] != math.replicas_of(rs)]
        await asyncio.gather(*(self._scale(deployment, rs, sizes[rs["metadata"]["uid"]]) for rs in changed))
        return bool(changed)

    async def _recreate(self, deployment: Obj, sets: list[Obj], reference: Obj) -> None:
        new, old = await self._new_set(deployment, sets, reference, create=False)
        active_old = [rs for rs in old if math.replicas_of(rs) > 0]
        if active_old:
            await asyncio.gather(*(self._scale(deployment, rs, 0) for rs in active_old))
            await self._write_status(deployment, sets, new)
            return
        old_uids = {rs["metadata"]["uid"] for rs in old}
        namespace = deployment["metadata"]["namespace"]
        for pod in self.pods.by_index(NAMESPACE_INDEX, namespace):
            ref = controller_of(pod)
            if (
                ref is not None
                and ref.get("uid") in old_uids
                and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
            ):
                await self._write_status(deployment, sets, new)
                return
        if new is None:
            new, old = await self._new_set(deployment, sets, reference, create=True)
            assert new is not None
        new = await self._scale(deployment, new, deployment["spec"].get("replicas", 1))
        status = await self._write_status(deployment, [*old, new], new)
        if math.complete(deployment, status):
            await self._clean_history(deployment, old)

    async def _scale_only(self, deployment: Obj, sets: list[Obj]) -> None:
        new = self._find_new(deployment, sets)
        old = [rs for rs in sets if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        plan = math.scale_plan(deployment, new, old, desired_key=self.desired_key, max_key=self.max_key)
        resized = {rs["metadata"]["uid"]: await self._scale(deployment, rs, size) for rs, size in plan}
        sets = [resized.get(rs["metadata"]["uid"], rs) for rs in sets]
        new = self._find_new(deployment, sets)
        status = await self._write_status(deployment, sets, new)
        if deployment["spec"].get("paused") and math.complete(deployment, status):
            await self._clean_history(deployment, old)

    async def _clean_history(self, deployment: Obj, old: list[Obj]) -> None:
        limit = deployment["spec"].get("revisionHistoryLimit", 10)
        if limit is None:
            return
        dead = [
            rs
            for rs in old
            if math.replicas_of(rs) == 0
            and math.status_count(rs, "replicas") == 0
            and not rs["metadata"].get("deletionTimestamp")
        ]
        dead.sort(key=self._revision)
        for rs in dead[: max(len(dead) - limit, 0)]:
            try:
                await self.context.client.delete(self._set_path(rs))
            except ApiError as error:
                if error.reason != "NotFound":
                    raise

    async def _write_status(self, deployment: Obj, sets: list[Obj], new: Obj | None) -> Obj:
        wall = self.context.clock.wall()
        status = math.calculate_status(deployment, sets, new, wall)
        spec = deployment["spec"]
        progressing = math.condition(status, "Progressing")
        if spec.get("paused"):
            math.set_condition(status, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", wall)
        elif progressing is not None and progressing.get("reason") == "DeploymentPaused":
            math.set_condition(status, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", wall)
        elif spec.get("progressDeadlineSeconds") is None:
            math.remove_condition(status, "Progressing")
        elif new is not None:
            self._progress(deployment, status, new, wall)
        metadata = deployment["metadata"]
        current = deployment.get("status") or {}
        if status != current:
            path = self._path("deployments", metadata["namespace"], metadata["name"], "status")
            await self.context.client.update(path, {**deployment, "status": status})
        if (
            spec.get("progressDeadlineSeconds") is not None
            and not math.complete(deployment, status)
            and not spec.get("paused")
        ):
            self.queue.add_after(key_of(deployment), float(spec["progressDeadlineSeconds"]) + 1)
        return status

    def _progress(self, deployment: Obj, status: Obj, new: Obj, wall: float) -> None:
        """The Progressing condition as upstream's `syncRolloutStatus` sets it."""
        name = new["metadata"]["name"]
        current = math.condition(status, "Progressing")
        finished = current is not None and current.get("reason") == "NewReplicaSetAvailable"
        if status.get("replicas") == status.get("updatedReplicas") and finished:
            return
        if current is None:
            math.set_condition(
                status, "Progressing", "True", "FoundNewReplicaSet", f'Found new replica set "{name}"', wall
            )
        if math.complete(deployment, status):
            math.set_condition(
                status,
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                f'ReplicaSet "{name}" has successfully progressed.',
                wall,
            )
        elif math.progressing(deployment, status):
            current = math.condition(status, "Progressing")
            message = f'ReplicaSet "{name}" is progressing.'
            if current is not None and current.get("status") == "True":
                current.update(reason="ReplicaSetUpdated", message=message, lastUpdateTime=math.rfc3339(wall))
            else:
                math.set_condition(status, "Progressing", "True", "ReplicaSetUpdated", message, wall)
        elif math.timed_out(deployment, status, wall):
            math.set_condition(
                status,
                "Progressing",
                "False",
                "ProgressDeadlineExceeded",
                f'ReplicaSet "{name}" has timed out progressing.',
                wall,
            )
