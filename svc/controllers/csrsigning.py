"""The certificatesigningrequest-signing controller: approved requests to the built-in signers get
their certificate.

Upstream `pkg/controller/certificates/signer`: one signer per built-in signer name, each with its CA
pair (`--cluster-signing-<signer>-cert-file`/`-key-file`, else the generic pair). A request is signed
once it is Approved, not Failed and has no certificate yet; a request the signer's rules refuse gets
the `Failed` condition (`SignerValidationFailure`) instead. The lifetime is `--cluster-signing-duration`
or the shorter `spec.expirationSeconds`. Without any CA pair the controller signs nothing, as upstream
skips it.
"""

from __future__ import annotations

import base64
import logging

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler
from svc.client.workers import run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers import csr_rules
from svc.controllers.context import ControllerContext
from svc.controllers.deployment_math import rfc3339

NAME = "certificatesigningrequest-signing-controller"
GROUP = "certificates.k8s.io"
log = logging.getLogger(__name__)

Obj = csr_rules.Obj


def csr_path(context: ControllerContext, name: str, subresource: str = "") -> str:
    group = context.profile.group(GROUP)
    return resource_path(group, "v1", "certificatesigningrequests", name=name, subresource=subresource)


class CSRSigningController:
    def __init__(
        self,
        context: ControllerContext,
        authorities: dict[str, csr_rules.CertificateAuthority],
        *,
        ttl: float = 8760 * 3600.0,
        workers: int = 5,
    ) -> None:
        self.context = context
        self.authorities = authorities
        self.ttl = ttl
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
        if not self.authorities:
            log.info("%s: no CA pair given (--cluster-signing-cert-file); signing nothing", NAME)
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, name: str) -> None:
        csr = self.requests.get(name)
        if csr is None or (csr.get("status") or {}).get("certificate"):
            return
        if csr_rules.condition(csr, "Approved") is None or csr_rules.condition(csr, "Failed") is not None:
            return
        spec = csr.get("spec") or {}
        authority = self.authorities.get(spec.get("signerName", ""))
        if authority is None:
            return
        request = csr_rules.parse_request(csr)
        refusal = csr_rules.signer_error(self.signers, csr, request)
        now = self.context.clock.wall()
        status = dict(csr.get("status") or {})
        if refusal is not None:
            failed = {
                "type": "Failed",
                "status": "True",
                "reason": "SignerValidationFailure",
                "message": refusal,
                "lastUpdateTime": rfc3339(now),
                "lastTransitionTime": rfc3339(now),
            }
            status["conditions"] = [*(status.get("conditions") or []), failed]
        else:
            ttl = csr_rules.duration(self.ttl, spec.get("expirationSeconds"))
            pem = authority.sign(request, list(spec.get("usages") or []), ttl, now)
            status["certificate"] = base64.b64encode(pem).decode()
        try:
            await self.context.client.update(csr_path(self.context, name, "status"), {**csr, "status": status})
        except ApiError as error:
            if error.reason != "NotFound":
                raise


def load_authorities(
    signers: csr_rules.SignerNames, generic: tuple[str, str], specific: dict[str, tuple[str, str]]
) -> dict[str, csr_rules.CertificateAuthority]:
    """Each built-in signer's CA: its own pair when given, else the generic pair, else none."""
    found = {}
    for signer in (signers.apiserver_client, signers.kubelet_client, signers.kubelet_serving, signers.legacy_unknown):
        cert_file, key_file = specific.get(signer) or generic
        if cert_file and key_file:
            found[signer] = csr_rules.CertificateAuthority.load(cert_file, key_file)
    return found
