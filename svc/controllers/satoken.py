"""The serviceaccount-token controller: legacy token Secrets are filled in, and removed with their account.

Upstream `pkg/controller/serviceaccount/tokens_controller.go`. A Secret of type
`kubernetes.io/service-account-token` (profile spelling) names its account in the
`kubernetes.io/service-account.name` annotation; the controller writes `token` (a JWT with the legacy
issuer and flat claims, signed with `--service-account-private-key-file`), `ca.crt` (the root CA) and
`namespace`, and records the account's uid in `kubernetes.io/service-account.uid`. A token Secret whose
account does not exist (or has another uid) is deleted, and deleting an account deletes its tokens.
Since 1.24 no token Secret is created for an account: users create them. The Secret is read live
before it is written and left for a later sync when the cache is behind, so a token is never
generated twice. Without a private key the controller is not started, as upstream.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import Any

from svc.apiserver.authn.legacy_tokens import legacy_issuer
from svc.apiserver.authn.service_account_jwt import Signer
from svc.apiserver.authn.service_account_keys import KeyFileError, load_private_key
from svc.client.aio import ApiError, resource_path
from svc.client.informer import NAMESPACE_INDEX, Handler, key_of
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext

NAME = "serviceaccount-token-controller"
log = logging.getLogger(__name__)
Obj = dict[str, Any]


def load_signer(path: str, context: ControllerContext) -> Signer:
    """The legacy-token signer of `--service-account-private-key-file`; a bad file stops the daemon."""
    try:
        key = load_private_key(path)
    except KeyFileError as error:
        raise OSError(f"error reading key for service account token controller: {error}") from None
    return Signer(legacy_issuer(context.profile), key)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class ServiceAccountTokenController:
    def __init__(self, context: ControllerContext, signer: Signer, *, workers: int = 5) -> None:
        self.context = context
        self.signer = signer
        self.workers = workers
        label = context.profile.label
        self.token_type = label("kubernetes.io/service-account-token")
        self.name_key = label("kubernetes.io/service-account.name")
        self.uid_key = label("kubernetes.io/service-account.uid")
        self.claim_prefix = f"{context.profile.label_domain}/serviceaccount/"
        self.account_queue: RateLimitingQueue[str] = RateLimitingQueue(f"{NAME}-accounts", clock=context.clock)
        self.secret_queue: RateLimitingQueue[str] = RateLimitingQueue(f"{NAME}-secrets", clock=context.clock)
        self.accounts = context.informers.informer("", "v1", "serviceaccounts")
        self.secrets = context.informers.informer("", "v1", "secrets")
        self._deleted: dict[str, str] = {}
        self.accounts.add_handler(Handler(on_delete=self._account_deleted))
        self.secrets.add_handler(
            Handler(
                on_add=self._secret_changed,
                on_update=lambda _old, secret: self._secret_changed(secret),
                on_delete=self._secret_changed,
            )
        )

    def _account_deleted(self, account: Obj) -> None:
        key = key_of(account)
        self._deleted[key] = account["metadata"].get("uid", "")
        self.account_queue.add(key)

    def _secret_changed(self, secret: Obj) -> None:
        if secret.get("type") == self.token_type:
            self.secret_queue.add(key_of(secret))

    async def run(self) -> None:
        await asyncio.gather(
            run_workers(self.account_queue, self.sync_account, workers=self.workers, name=NAME),
            run_workers(self.secret_queue, self.sync_secret, workers=self.workers, name=NAME),
        )

    async def sync_account(self, key: str) -> None:
        """A deleted account takes its token Secrets with it."""
        if self.accounts.get(key) is not None:
            self._deleted.pop(key, None)
            return
        uid = self._deleted.pop(key, "")
        namespace, _, name = key.partition("/")
        for secret in self.secrets.by_index(NAMESPACE_INDEX, namespace):
            annotations = secret["metadata"].get("annotations") or {}
            if secret.get("type") != self.token_type or annotations.get(self.name_key) != name:
                continue
            if annotations.get(self.uid_key) and uid and annotations[self.uid_key] != uid:
                continue
            await self._delete(secret)

    async def sync_secret(self, key: str) -> None:
        secret = self.secrets.get(key)
        if secret is None or secret.get("type") != self.token_type:
            return
        annotations = secret["metadata"].get("annotations") or {}
        account = await self._account(secret["metadata"]["namespace"], annotations.get(self.name_key, ""))
        uid = annotations.get(self.uid_key)
        if account is None or (uid and account["metadata"].get("uid") != uid):
            await self._delete(secret)
            return
        await self._fill(secret, account)

    async def _account(self, namespace: str, name: str) -> Obj | None:
        """From the cache, else from the API server: a new account may not be cached yet."""
        if not name:
            return None
        cached = self.accounts.get(f"{namespace}/{name}")
        if cached is not None:
            return cached
        try:
            return await self.context.client.get(
                resource_path("", "v1", "serviceaccounts", namespace=namespace, name=name)
            )
        except ApiError as error:
            if error.reason == "NotFound":
                return None
            raise

    async def _fill(self, cached: Obj, account: Obj) -> None:
        metadata = cached["metadata"]
        path = resource_path("", "v1", "secrets", namespace=metadata["namespace"], name=metadata["name"])
        try:
            live = await self.context.client.get(path)
        except ApiError as error:
            if error.reason == "NotFound":
                return
            raise
        if live["metadata"].get("resourceVersion") != metadata.get("resourceVersion"):
            raise RequeueAfter(0.1, "the cached secret is behind the live one")
        data = dict(live.get("data") or {})
        root_ca = self.context.root_ca
        needs_ca = bool(root_ca) and data.get("ca.crt") != _b64(root_ca)
        needs_namespace = data.get("namespace") != _b64(metadata["namespace"].encode())
        needs_token = not data.get("token")
        if not (needs_ca or needs_namespace or needs_token):
            return
        if needs_ca:
            data["ca.crt"] = _b64(root_ca)
        if needs_namespace:
            data["namespace"] = _b64(metadata["namespace"].encode())
        annotations = dict(live["metadata"].get("annotations") or {})
        if needs_token:
            data["token"] = _b64((await self._token(account, metadata["name"])).encode())
            annotations[self.name_key] = account["metadata"]["name"]
            annotations[self.uid_key] = account["metadata"].get("uid", "")
        body = {**live, "data": data, "metadata": {**live["metadata"], "annotations": annotations}}
        try:
            await self.context.client.update(path, body)
        except ApiError as error:
            if error.reason != "NotFound":
                raise

    async def _token(self, account: Obj, secret_name: str) -> str:
        namespace = account["metadata"]["namespace"]
        name = account["metadata"]["name"]
        prefix = self.claim_prefix
        claims = {
            f"{prefix}namespace": namespace,
            f"{prefix}secret.name": secret_name,
            f"{prefix}service-account.name": name,
            f"{prefix}service-account.uid": account["metadata"].get("uid", ""),
            "sub": f"system:serviceaccount:{namespace}:{name}",
        }
        return await self.signer.sign(claims)

    async def _delete(self, secret: Obj) -> None:
        metadata = secret["metadata"]
        path = resource_path("", "v1", "secrets", namespace=metadata["namespace"], name=metadata["name"])
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": metadata.get("uid")}}
        try:
            await self.context.client.delete(path, body)
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict"):
                raise
