"""The validatingadmissionpolicy-status controller: each ValidatingAdmissionPolicy's `status` says which
of its expressions do not type-check against the kinds it matches, for the generation it checked.

Upstream `pkg/controller/validatingadmissionpolicystatus`: a policy whose `status.observedGeneration`
is behind its generation is checked (`svc/api/validation/policy_type_checking.py`, against the
built-in kinds' schemas) and its status applied server-side by this controller's field manager. The
policy still runs whatever the warnings say; they are for its author.
"""

from __future__ import annotations

from typing import Any

from svc.api.resources import ResourceSet
from svc.api.validation.policy_type_checking import expression_warnings
from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "validatingadmissionpolicy-status-controller"
GROUP = "admissionregistration.k8s.io"
RESOURCE = "validatingadmissionpolicies"

Obj = dict[str, Any]


class AdmissionPolicyStatusController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.resources = ResourceSet(context.profile)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.policies = context.informers.informer(GROUP, "v1", RESOURCE)
        self.policies.add_handler(
            Handler(
                on_add=self._queue,
                on_update=lambda _old, policy: self._queue(policy),
                on_delete=lambda _policy: None,
            )
        )

    def _queue(self, policy: Obj) -> None:
        self.queue.add(policy["metadata"]["name"])

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, name: str) -> None:
        policy = self.policies.get(name)
        if policy is None:
            return
        generation = policy["metadata"].get("generation", 0)
        if generation <= (policy.get("status") or {}).get("observedGeneration", 0):
            return
        warnings = expression_warnings(policy.get("spec") or {}, self.resources)
        group = self.context.profile.group(GROUP)
        applied = {
            "apiVersion": f"{group}/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "status": {"observedGeneration": generation, "typeChecking": {"expressionWarnings": warnings}},
        }
        if not warnings:
            applied["status"]["typeChecking"] = {}
        try:
            await self.context.client.apply(
                resource_path(group, "v1", RESOURCE, name=name, subresource="status"), applied, field_manager=NAME
            )
        except ApiError as error:
            if error.reason != "NotFound":
                raise
