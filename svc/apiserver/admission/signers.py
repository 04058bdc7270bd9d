"""Whether a user may `approve` or `sign` for a signer: the verb on `signers` of certificates.k8s.io,
named by the signer or by its domain wildcard (`example.com/*`), as upstream's certificate plugins ask."""

from __future__ import annotations

from svc.apiserver.admission.registry import PluginContext
from svc.apiserver.authz.authorizer import Attributes as AuthzAttributes
from svc.apiserver.authz.authorizer import Decision
from svc.registry.admission import UserInfo

GROUP = "certificates.k8s.io"


async def may_use_signer(context: PluginContext, user: UserInfo, verb: str, signer: str) -> bool:
    names = [signer]
    domain, sep, _ = signer.partition("/")
    if sep:
        names.append(f"{domain}/*")
    for name in names:
        attributes = AuthzAttributes(user, verb, True, api_group=GROUP, resource="signers", name=name)
        decision, _ = await context.server.authorizer.authorize(attributes)
        if decision is Decision.ALLOW:
            return True
    return False
