"""`--use-service-account-credentials`: each controller talks to the API server as its own service account.

Upstream's dynamic controller client builder: for a controller, the daemon (with its own credentials)
makes sure the account `<client name>` exists in the system namespace, asks for a token through the
TokenRequest API (an hour's life) and sends it as a bearer token, renewing it once 80% of its life
has passed. The account is bound by the bootstrap policy to `system:controller:<client name>`, so
each controller can do only what its role allows. The client names are upstream's (the garbage
collector is `generic-garbage-collector`, node lifecycle and node-ipam are `node-controller`, ...);
informers and the serviceaccount-token controller keep the daemon's own credentials, as upstream.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
from collections.abc import AsyncIterator, Mapping
from typing import Any

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.client.kubeconfig import ClientConfig
from svc.controllers.context import ControllerContext

Obj = dict[str, Any]
TOKEN_SECONDS = 3600
RENEW_AT = 0.8

# Controller -> the service account it acts as (upstream's `ClientOrDie` names).
CLIENT_NAMES = {
    "serviceaccount-controller": "service-account-controller",
    "root-ca-certificate-publisher-controller": "root-ca-cert-publisher",
    "garbage-collector-controller": "generic-garbage-collector",
    "namespace-controller": "namespace-controller",
    "endpoints-controller": "endpoint-controller",
    "endpointslice-controller": "endpointslice-controller",
    "endpointslice-mirroring-controller": "endpointslicemirroring-controller",
    "resourcequota-controller": "resourcequota-controller",
    "pod-garbage-collector-controller": "pod-garbage-collector",
    "ttl-after-finished-controller": "ttl-after-finished-controller",
    "deployment-controller": "deployment-controller",
    "replicaset-controller": "replicaset-controller",
    "replicationcontroller-controller": "replication-controller",
    "job-controller": "job-controller",
    "cronjob-controller": "cronjob-controller",
    "daemonset-controller": "daemon-set-controller",
    "statefulset-controller": "statefulset-controller",
    "clusterrole-aggregation-controller": "clusterrole-aggregation-controller",
    "persistentvolume-protection-controller": "pv-protection-controller",
    "persistentvolumeclaim-protection-controller": "pvc-protection-controller",
    "ephemeral-volume-controller": "ephemeral-volume-controller",
    "node-lifecycle-controller": "node-controller",
    "taint-eviction-controller": "node-controller",
    "node-ipam-controller": "node-controller",
    "disruption-controller": "disruption-controller",
    "certificatesigningrequest-signing-controller": "certificate-controller",
    "certificatesigningrequest-approving-controller": "certificate-controller",
    "certificatesigningrequest-cleaner-controller": "certificate-controller",
    "ttl-controller": "ttl-controller",
    "token-cleaner-controller": "token-cleaner",
    "bootstrap-signer-controller": "bootstrap-signer",
    "legacy-serviceaccount-token-cleaner-controller": "legacy-service-account-token-cleaner",
    "persistentvolume-binder-controller": "persistent-volume-binder",
    "persistentvolume-expander-controller": "expand-controller",
    "persistentvolume-attach-detach-controller": "attachdetach-controller",
    "resourceclaim-controller": "resource-claim-controller",
    "service-cidr-controller": "service-cidrs-controller",
    "horizontal-pod-autoscaler-controller": "horizontal-pod-autoscaler",
    "validatingadmissionpolicy-status-controller": "validatingadmissionpolicy-status-controller",
    "volumeattributesclass-protection-controller": "volumeattributesclass-protection-controller",
    "device-taint-eviction-controller": "device-taint-eviction-controller",
}


def _expiry(text: str | None, now: float) -> float:
    try:
        return datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return now + TOKEN_SECONDS


class ServiceAccountClient(AsyncRestClient):
    """A client sending the bearer token of one service account, fetched and renewed through `root`."""

    def __init__(
        self, root: AsyncRestClient, namespace: str, account: str, *, auth_group: str, user_agent: str
    ) -> None:
        config = root.config
        anonymous = ClientConfig(
            server=config.server,
            ca_file=config.ca_file,
            ca_data=config.ca_data,
            insecure=config.insecure,
            tls_server_name=config.tls_server_name,
        )
        super().__init__(anonymous, user_agent=user_agent, clock=root.clock, content=root.content)
        self._limiter = root._limiter
        self.root = root
        self.namespace = namespace
        self.account = account
        self.auth_group = auth_group
        self._renew_after = 0.0
        self._lock = asyncio.Lock()

    async def _ensure_token(self) -> None:
        if self.clock.wall() < self._renew_after:
            return
        async with self._lock:
            if self.clock.wall() < self._renew_after:
                return
            await self._ensure_account()
            path = resource_path("", "v1", "serviceaccounts", namespace=self.namespace, name=self.account)
            body = {
                "apiVersion": f"{self.auth_group}/v1",
                "kind": "TokenRequest",
                "spec": {"expirationSeconds": TOKEN_SECONDS},
            }
            answer = await self.root.create(f"{path}/token", body)
            status = answer.get("status") or {}
            now = self.clock.wall()
            expires = _expiry(status.get("expirationTimestamp"), now)
            self._renew_after = now + (expires - now) * RENEW_AT
            self._headers["Authorization"] = f"Bearer {status.get('token', '')}"
            if self._session is not None:
                self._session.headers["Authorization"] = self._headers["Authorization"]

    async def _ensure_account(self) -> None:
        collection = resource_path("", "v1", "serviceaccounts", namespace=self.namespace)
        try:
            await self.root.get(f"{collection}/{self.account}")
        except ApiError as error:
            if error.reason != "NotFound":
                raise
            body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": self.account}}
            try:
                await self.root.create(collection, body)
            except ApiError as create_error:
                if create_error.reason != "AlreadyExists":
                    raise

    async def request(self, method: str, path: str, **kwargs: Any) -> Obj:
        await self._ensure_token()
        return await super().request(method, path, **kwargs)

    async def watch(
        self, path: str, params: Mapping[str, str], *, headers: Mapping[str, str] | None = None
    ) -> AsyncIterator[Obj]:
        await self._ensure_token()
        async for event in super().watch(path, params, headers=headers):
            yield event


class Credentials:
    """Hands each controller the context it acts in: the daemon's own, or its service account's."""

    def __init__(self, context: ControllerContext, *, per_controller: bool) -> None:
        self.context = context
        self.per_controller = per_controller
        self.clients: dict[str, ServiceAccountClient] = {}

    def context_for(self, controller: str) -> ControllerContext:
        account = CLIENT_NAMES.get(controller)
        if not self.per_controller or account is None:
            return self.context
        if account not in self.clients:
            self.clients[account] = ServiceAccountClient(
                self.context.client,
                self.context.profile.system_namespace,
                account,
                auth_group=self.context.profile.group("authentication.k8s.io"),
                user_agent=f"{self.context.client.user_agent}/{account}",
            )
        return dataclasses.replace(self.context, client=self.clients[account])

    async def close(self) -> None:
        await asyncio.gather(*(client.close() for client in self.clients.values()))
