"""ClusterTrustBundleAttest: publishing a trust bundle for a signer needs the `attest` verb on that
signer (an update that leaves the bundle's meaning unchanged is not checked again)."""

from __future__ import annotations

from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.matching import targets
from svc.apiserver.admission.registry import PluginContext
from svc.apiserver.admission.signers import GROUP, may_use_signer
from svc.registry.admission import Attributes, Operation


class ClusterTrustBundleAttest:
    resources = frozenset({(GROUP, "clustertrustbundles")})

    def __init__(self, context: PluginContext) -> None:
        self._context = context

    async def validate(self, attributes: Attributes) -> None:
        bundle = attributes.object
        if attributes.operation not in (Operation.CREATE, Operation.UPDATE) or not isinstance(bundle, dict):
            return
        if not targets(attributes, GROUP, "clustertrustbundles"):
            return
        spec = bundle.get("spec") or {}
        if attributes.operation is Operation.UPDATE and spec == (attributes.old_object or {}).get("spec"):
            return
        signer = spec.get("signerName", "")
        if signer and not await may_use_signer(self._context, attributes.user, "attest", signer):
            raise forbidden(attributes, f'user not permitted to attest for signerName "{signer}"')


def build(context: PluginContext) -> ClusterTrustBundleAttest:
    return ClusterTrustBundleAttest(context)
