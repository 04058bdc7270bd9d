"""The token-cleaner controller (off by default): expired bootstrap tokens are deleted.

Upstream `pkg/controller/bootstrap/tokencleaner.go`: a Secret of type `bootstrap.kubernetes.io/token`
(profile spelling) in the system namespace whose `expiration` (RFC 3339) has passed is deleted,
guarded by its uid; one not yet expired is looked at again when it expires.
"""

from __future__ import annotations

import base64
import binascii
import math

from svc.client.aio import ApiError, resource_path
from svc.client.informer import Handler, key_of
from svc.client.workers import RequeueAfter, run_workers
from svc.client.workqueue import RateLimitingQueue
from svc.controllers.context import ControllerContext
from svc.controllers.node_health import parse_time

NAME = "token-cleaner-controller"


def expiration(secret: dict) -> float | None:
    """When a bootstrap token expires: None for never; an expiration that does not parse counts as
    long past (upstream's `GetExpiration` "treating as expired"), so such a token signs nothing and is
    cleaned up."""
    encoded = (secret.get("data") or {}).get("expiration")
    if not encoded:
        return None
    try:
        return parse_time(base64.b64decode(encoded).decode())
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return -math.inf


class TokenCleaner:
    def __init__(self, context: ControllerContext, *, workers: int = 1) -> None:
        self.context = context
        self.workers = workers
        self.namespace = context.profile.system_namespace
        self.token_type = context.profile.label("bootstrap.kubernetes.io/token")
        self.queue: RateLimitingQueue[str] = RateLimitingQueue(NAME, clock=context.clock)
        self.secrets = context.informers.informer("", "v1", "secrets")
        self.secrets.add_handler(Handler(on_add=self._changed, on_update=lambda _old, secret: self._changed(secret)))

    def _changed(self, secret: dict) -> None:
        if secret["metadata"].get("namespace") == self.namespace and secret.get("type") == self.token_type:
            self.queue.add(key_of(secret))

    async def run(self) -> None:
        await run_workers(self.queue, self.sync, workers=self.workers, name=NAME)

    async def sync(self, key: str) -> None:
        secret = self.secrets.get(key)
        if secret is None or secret.get("type") != self.token_type:
            return
        expires = expiration(secret)
        if expires is None:
            return
        left = expires - self.context.clock.wall()
        if left > 0:
            raise RequeueAfter(left, "token not yet expired")
        metadata = secret["metadata"]
        path = resource_path("", "v1", "secrets", namespace=metadata["namespace"], name=metadata["name"])
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": metadata.get("uid")}}
        try:
            await self.context.client.delete(path, body)
        except ApiError as error:
            if error.reason not in ("NotFound", "Conflict"):
                raise
