"""The resourceclaim controller: ResourceClaims made from a pod's templates, and released after the pod.

Upstream `pkg/controller/resourceclaim`: for a pod that is not done, each `spec.resourceClaims` entry
naming a `resourceClaimTemplateName` gets a ResourceClaim created from the template (generated name
`<pod>-<claim>-`, the template's labels and annotations plus `resource.kubernetes.io/pod-claim-name`,
a controller reference to the pod), and the pod's `status.resourceClaimStatuses` records which claim
serves which entry; a claim already made for the entry (found by owner and annotation) is reused. A
claim's `status.reservedFor` loses pods that are gone or done, and a generated claim no longer
reserved whose pod is done (or replaced) is deleted, rather than waiting for the pod's deletion.
An entry whose template is missing, or whose claim the API server refuses, gives the pod upstream's
`FailedResourceClaimCreation` Warning event; the sync fails and is retried with backoff (a template
created later queues the pod at once).
"""

from __future__ import annotations

from typing import Any

from svc.client.aio import ApiError, resource_path
from svc.client.events import WARNING
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "resourceclaim-controller"
COMPONENT = "resource_claim"
GROUP = "resource.k8s.io"
MAX_BASE_LENGTH = 57
Obj = dict[str, Any]


def pod_done(pod: Obj) -> bool:
    """Upstream's `isPodDone`: finished, or deleted before it was scheduled."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return True
    return bool(pod["metadata"].get("deletionTimestamp")) and not (pod.get("spec") or {}).get("nodeName")


def generate_name(pod_name: str, claim_name: str) -> str:
    """`<pod>-<claim>-`, both parts shortened in proportion when that would exceed 57 characters."""
    base = f"{pod_name}-{claim_name}-"
    if len(base) <= MAX_BASE_LENGTH:
        return base
    return (
        pod_name[: len(pod_name) * MAX_BASE_LENGTH // len(base)]
        + "-"
        + claim_name[: len(claim_name) * MAX_BASE_LENGTH // len(base)]
    )


def _owning_pod(claim: Obj) -> tuple[str, str]:
    for ref in claim["metadata"].get("ownerReferences") or []:
        if ref.get("controller") and ref.get("kind") == "Pod" and ref.get("apiVersion") == "v1":
            return ref.get("name", ""), ref.get("uid", "")
    return "", ""


class ClaimError(Exception):
    """Why a pod's claim entry has no claim, in upstream's words."""


class ResourceClaimController:
    def __init__(self, context: ControllerContext, *, workers: int = 50) -> None:
        self.context = context
        self.workers = workers
        self.events = context.recorder(COMPONENT)
        self.group = context.profile.group(GROUP)
        self.pod_claim_key = context.profile.label("resource.kubernetes.io/pod-claim-name")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.pods = context.informers.informer("", "v1", "pods")
        self.claims = context.informers.informer(GROUP, "v1", "resourceclaims")
        self.templates = context.informers.informer(GROUP, "v1", "resourceclaimtemplates")
        on_pod = lambda pod: self.queue.add(f"pod:{key_of(pod)}")  # noqa: E731
        self.pods.add_handler(
            Handler(on_add=on_pod, on_update=lambda _old, pod: on_pod(pod), on_delete=self._pod_deleted)
        )
        on_claim = lambda claim: self.queue.add(f"claim:{key_of(claim)}")  # noqa: E731
        self.claims.add_handler(Handler(on_add=on_claim, on_update=lambda _old, claim: on_claim(claim)))
        self.templates.add_handler(Handler(on_add=self._template_added))

    def _pod_deleted(self, pod: Obj) -> None:
        """Its reservations and generated claims need a look."""
        namespace = pod["metadata"].get("namespace", "")
        uid = pod["metadata"].get("uid")
        for claim in self.claims.by_index(NAMESPACE_INDEX, namespace):
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if _owning_pod(claim)[1] == uid or any(ref.get("uid") == uid for ref in reserved):
                self.queue.add(f"claim:{key_of(claim)}")

    def _template_added(self, template: Obj) -> None:
        """Pods waiting for this template can proceed."""
        namespace = template["metadata"].get("namespace", "")
        for pod in self.pods.by_index(NAMESPACE_INDEX, namespace):
            if any(
                entry.get("resourceClaimTemplateName") == template["metadata"]["name"]
                for entry in (pod.get("spec") or {}).get("resourceClaims") or []
            ):
                self.queue.add(f"pod:{key_of(pod)}")

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        kind, _, name = key.partition(":")
        if kind == "pod":
            await self.sync_pod(name)
        else:
            await self.sync_claim(name)

    # -- pods -----------------------------------------------------------------------------------

    async def sync_pod(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is None or pod_done(pod) or pod["metadata"].get("deletionTimestamp"):
            return
        recorded = {
            entry.get("name"): entry.get("resourceClaimName")
            for entry in (pod.get("status") or {}).get("resourceClaimStatuses") or []
        }
        new: dict[str, str] = {}
        for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
            template_name = entry.get("resourceClaimTemplateName")
            if not template_name or entry.get("name") in recorded:
                continue
            try:
                claim = self._existing(pod, entry["name"]) or await self._create(pod, entry["name"], template_name)
            except ClaimError as error:
                message = f"PodResourceClaim {entry['name']}: {error}"
                await self.events.event(pod, "Pod", "v1", WARNING, "FailedResourceClaimCreation", message)
                raise
            new[entry["name"]] = claim["metadata"]["name"]
        if new:
            statuses = [*((pod.get("status") or {}).get("resourceClaimStatuses") or [])]
            statuses += [{"name": name, "resourceClaimName": claim} for name, claim in new.items()]
            metadata = pod["metadata"]
            path = resource_path("", "v1", "pods", namespace=metadata["namespace"], name=metadata["name"]) + "/status"
            await self.context.client.patch(
                path, {"metadata": {"uid": metadata.get("uid")}, "status": {"resourceClaimStatuses": statuses}}
            )

    def _existing(self, pod: Obj, entry: str) -> Obj | None:
        """A claim made earlier for this entry (the status update may have failed after the create)."""
        for claim in self.claims.by_index(NAMESPACE_INDEX, pod["metadata"].get("namespace", "")):
            owner = _owning_pod(claim)
            annotations = claim["metadata"].get("annotations") or {}
            if owner[1] == pod["metadata"].get("uid") and annotations.get(self.pod_claim_key) == entry:
                return claim
        return None

    async def _create(self, pod: Obj, entry: str, template_name: str) -> Obj:
        namespace = pod["metadata"]["namespace"]
        template = self.templates.get(f"{namespace}/{template_name}")
        if template is None:
            missing = f'resourceclaimtemplate.{self.group} "{template_name}" not found'
            raise ClaimError(f'resource claim template "{template_name}": {missing}')
        template_metadata = (template.get("spec") or {}).get("metadata") or {}
        body = {
            "apiVersion": f"{self.group}/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "generateName": generate_name(pod["metadata"]["name"], entry),
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": pod["metadata"]["name"],
                        "uid": pod["metadata"].get("uid"),
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
                "annotations": {**(template_metadata.get("annotations") or {}), self.pod_claim_key: entry},
                "labels": dict(template_metadata.get("labels") or {}),
            },
            "spec": (template.get("spec") or {}).get("spec") or {},
        }
        try:
            return await self.context.client.create(
                resource_path(self.group, "v1", "resourceclaims", namespace=namespace), body
            )
        except ApiError as error:
            # upstream names the claim before the server has named it: the name is blank
            raise ClaimError(f"create ResourceClaim : {error.message}") from error

    # -- claims ---------------------------------------------------------------------------------

    async def sync_claim(self, key: str) -> None:
        claim = self.claims.get(key)
        if claim is None:
            return
        namespace = claim["metadata"].get("namespace", "")
        reserved = (claim.get("status") or {}).get("reservedFor") or []
        valid = [ref for ref in reserved if await self._still_reserving(namespace, ref)]
        path = resource_path(self.group, "v1", "resourceclaims", namespace=namespace, name=claim["metadata"]["name"])
        if len(valid) < len(reserved):
            status = {**(claim.get("status") or {}), "reservedFor": valid or None}
            await self._write(path + "/status", {**claim, "status": status})
        if valid:
            return
        pod_name, pod_uid = _owning_pod(claim)
        pod = self.pods.get(f"{namespace}/{pod_name}") if pod_name else None
        if pod is not None and (pod["metadata"].get("uid") != pod_uid or pod_done(pod)):
            try:
                await self.context.client.delete(path)
            except ApiError as error:
                if error.reason != "NotFound":
                    raise

    async def _still_reserving(self, namespace: str, ref: Obj) -> bool:
        if ref.get("apiGroup") or ref.get("resource") != "pods":
            return True
        pod = self.pods.get(f"{namespace}/{ref.get('name')}")
        if pod is None or pod["metadata"].get("uid") != ref.get("uid"):
            try:
                pod = await self.context.client.get(
                    resource_path("", "v1", "pods", namespace=namespace, name=ref.get("name", ""))
                )
            except ApiError as error:
                if error.reason != "NotFound":
                    raise
                return False
            if pod["metadata"].get("uid") != ref.get("uid"):
                return False
        return not pod_done(pod)

    async def _write(self, path: str, body: Obj) -> None:
        try:
            await self.context.client.update(path, body)
        except ApiError as error:
            if error.reason != "NotFound":
                raise
