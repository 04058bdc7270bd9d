"""The certificatesigningrequest-approving controller: kubelet client certificate requests are approved
when the requester may ask for them.

Upstream `pkg/controller/certificates/approver/sarapprove.go`: only requests to the kubelet client
signer, neither approved nor denied yet, are considered. A request whose subject is a node's
(`system:node:<name>` in `system:nodes`, no alternative names, client usages) is recognised as a node
client request, and as a self node client request when the requester is that node. Each recognised
kind is checked with a SubjectAccessReview for `create` on `certificatesigningrequests/selfnodeclient`
or `/nodeclient` as the requester; the first allowed one approves (`AutoApproved`). A recognised
request nobody may approve is retried later.
"""

from __future__ import annotations

from dataclasses import dataclass

from svc.client.aio import resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import csr_rules
from svc.controllers.context import ControllerContext
from svc.controllers.csrsigning import GROUP, csr_path
from svc.controllers.deployment_math import rfc3339

NAME = "certificatesigningrequest-approving-controller"

Obj = csr_rules.Obj


class NotApproved(Exception):
    """A recognised request whose requester may not have it approved."""


@dataclass(frozen=True)
class Recognizer:
    subresource: str
    message: str
    self_only: bool


RECOGNIZERS = (
    Recognizer("selfnodeclient", "Auto approving self kubelet client certificate after SubjectAccessReview.", True),
    Recognizer("nodeclient", "Auto approving kubelet client certificate after SubjectAccessReview.", False),
)


class CSRApprovingController:
    def __init__(self, context: ControllerContext, *, workers: int = 5) -> None:
        self.context = context
        self.workers = workers
        self.signers = csr_rules.SignerNames.of(context.profile)
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.requests = context.informers.informer(GROUP, "v1", "certificatesigningrequests")
        self.requests.add_handler(
            Handler(
                on_add=lambda csr: self.queue.add(csr["metadata"]["name"]),
                on_update=lambda _old, csr: self.queue.add(csr["metadata"]["name"]),
            )
        )

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, name: str) -> None:
        csr = self.requests.get(name)
        if csr is None or (csr.get("status") or {}).get("certificate"):
            return
        if csr_rules.condition(csr, "Approved") or csr_rules.condition(csr, "Denied"):
            return
        spec = csr.get("spec") or {}
        if spec.get("signerName") != self.signers.kubelet_client:
            return
        request = csr_rules.parse_request(csr)
        if csr_rules.kubelet_client_error(request, set(spec.get("usages") or [])) is not None:
            return
        tried = []
        for recognizer in RECOGNIZERS:
            if recognizer.self_only and spec.get("username") != csr_rules.common_name(request):
                continue
            tried.append(recognizer.subresource)
            if await self._allowed(spec, recognizer.subresource):
                await self._approve(csr, recognizer.message)
                return
        raise NotApproved(f'recognized csr "{name}" as [{" ".join(tried)}] but subject access review was not approved')

    async def _allowed(self, spec: Obj, subresource: str) -> bool:
        review = {
            "apiVersion": f"{self.context.profile.group('authorization.k8s.io')}/v1",
            "kind": "SubjectAccessReview",
            "spec": {
                "user": spec.get("username", ""),
                "uid": spec.get("uid", ""),
                "groups": spec.get("groups") or [],
                "extra": spec.get("extra") or {},
                "resourceAttributes": {
                    "group": self.context.profile.group(GROUP),
                    "resource": "certificatesigningrequests",
                    "subresource": subresource,
                    "verb": "create",
                },
            },
        }
        path = resource_path(self.context.profile.group("authorization.k8s.io"), "v1", "subjectaccessreviews")
        answer = await self.context.client.create(path, review)
        return bool((answer.get("status") or {}).get("allowed"))

    async def _approve(self, csr: Obj, message: str) -> None:
        now = rfc3339(self.context.clock.wall())
        approved = {
            "type": "Approved",
            "status": "True",
            "reason": "AutoApproved",
            "message": message,
            "lastUpdateTime": now,
            "lastTransitionTime": now,
        }
        status = dict(csr.get("status") or {})
        status["conditions"] = [*(status.get("conditions") or []), approved]
        await self.context.client.update(
            csr_path(self.context, csr["metadata"]["name"], "approval"), {**csr, "status": status}
        )
