"""Builds the two webhook plugins from the server's parts: one webhook client (one connection pool),
one request matcher, the configuration stores, the authorizer for match conditions.

The registry builds MutatingAdmissionWebhook and ValidatingAdmissionWebhook one at a time; both
share what `webhooks_for` builds once per server, and `close_webhooks` releases the pool at stop."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from svc.apiserver.admission.matching import Equivalents, NamespaceGetter, RequestMatcher
from svc.apiserver.admission.plugins.webhook.calls import Caller
from svc.apiserver.admission.plugins.webhook.hooks import HookSource
from svc.apiserver.admission.plugins.webhook.mutating import MutatingWebhooks
from svc.apiserver.admission.plugins.webhook.validating import ValidatingWebhooks
from svc.apiserver.authz.authorizer import Attributes as AuthzAttributes
from svc.apiserver.webhook_client import WebhookClient
from svc.apiserver.webhook_service_resolver import endpoints_resolver
from svc.machinery import status
from svc.machinery.cel.library.authz import Request, Verdict
from svc.registry.admission import UserInfo

if TYPE_CHECKING:
    from svc.apiserver.server import Server

_GROUP = "admissionregistration.k8s.io"


@dataclass(frozen=True)
class Webhooks:
    mutating: MutatingWebhooks
    validating: ValidatingWebhooks
    client: WebhookClient


_BUILT: weakref.WeakKeyDictionary[Server, Webhooks] = weakref.WeakKeyDictionary()


def webhooks_for(server: Server, *, get_namespace: NamespaceGetter) -> Webhooks:
    """The plugins of `server`, built on first use; `get_namespace` reads namespaces for
    namespaceSelector (a cached reader)."""
    built = _BUILT.get(server)
    if built is None:
        built = _BUILT[server] = _build(server, get_namespace)
    return built


async def close_webhooks(server: Server) -> None:
    built = _BUILT.pop(server, None)
    if built is not None:
        await built.client.close()


def _build(server: Server, get_namespace: NamespaceGetter) -> Webhooks:
    async def get_core(resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            return await server.store_for("", resource).get(namespace, name)
        except status.StatusError as error:
            if error.code == 404:
                return None
            raise

    async def authorize(request: Request) -> Verdict:
        attributes = AuthzAttributes(
            user=UserInfo(request.user, groups=request.groups),
            verb=request.verb,
            is_resource_request=request.resource_request,
            path=request.path,
            namespace=request.namespace,
            api_group=request.api_group,
            api_version=request.api_version,
            resource=request.resource,
            subresource=request.subresource,
            name=request.name,
        )
        decision, reason = await server.authorizer.authorize(attributes)
        return Verdict(decision.value, reason)

    client = WebhookClient(endpoints_resolver(get_core))
    matcher = RequestMatcher(equivalents=Equivalents.following(server.stores), get_namespace=get_namespace)
    caller = Caller(
        matcher=matcher, client=client, profile=server.profile, authorize=authorize, metrics=server.metrics.admission
    )
    mutating = HookSource(lambda: server.store_for(_GROUP, "mutatingwebhookconfigurations"))
    validating = HookSource(lambda: server.store_for(_GROUP, "validatingwebhookconfigurations"))
    return Webhooks(MutatingWebhooks(mutating, caller, server.profile), ValidatingWebhooks(validating, caller), client)
