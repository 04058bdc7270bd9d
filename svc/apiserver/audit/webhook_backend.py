"""The webhook backend: events POSTed as an `EventList` to the service a kubeconfig names.

In `batch` mode events go through the bounded buffer (`batching.py`) and a failed batch is logged
and counted, then dropped. In `blocking` and `blocking-strict` modes each event is sent on its own,
in order, and the request waits for it (the audit filter awaits the delivery): an answered request
has had its events accepted by the receiver or retried to the end of the backoff. A delivery that
still fails is logged and counted; under `blocking-strict` a failed `RequestReceived` event fails the
request itself, so nothing is served unaudited. Failed calls are retried with upstream's backoff
from `--audit-webhook-initial-backoff` (factor 1.5, jitter 0.2, five attempts).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from svc.apiserver.audit.batching import BatchBuffer
from svc.apiserver.audit.event import AuditItem, materialize
from svc.apiserver.audit.options import AuditOptions
from svc.apiserver.audit.truncate import truncate_batch
from svc.apiserver.webhook_kubeconfig import Backoff, KubeconfigWebhook, WebhookCallError

log = logging.getLogger(__name__)
Event = AuditItem


class WebhookBackend:
    name = "webhook"

    def __init__(self, options: AuditOptions, on_error: Callable[[str, int], None]) -> None:
        assert options.webhook_config is not None
        self._client = KubeconfigWebhook(options.webhook_config, backoff=Backoff(delay=options.webhook_initial_backoff))
        self._version = options.webhook_version
        self._truncate = options.webhook_truncate
        self._on_error = on_error
        self.mode = options.webhook_mode
        self._batches = (
            BatchBuffer(options.webhook_batch, self._send, lambda count: on_error("buffered", count))
            if self.mode == "batch"
            else None
        )
        self._order = asyncio.Lock()

    def process(self, event: Event) -> Awaitable[bool] | None:
        """None in batch mode; otherwise the delivery, True once the receiver accepted the event."""
        if self._batches is not None:
            self._batches.process(event)
            return None
        return asyncio.ensure_future(self._deliver(event))

    async def _deliver(self, event: Event) -> bool:
        async with self._order:
            return await self._send([event])

    async def _send(self, events: list[Event]) -> bool:
        delivered = True
        for batch in truncate_batch([materialize(event) for event in events], self._truncate):
            body = {"kind": "EventList", "apiVersion": self._version, "metadata": {}, "items": batch}
            try:
                await self._client.post(body)
            except WebhookCallError as error:
                log.error("Error in audit plugin 'webhook' affecting %d audit events: %s", len(batch), error)
                self._on_error(self.name, len(batch))
                delivered = False
        return delivered

    async def close(self) -> None:
        if self._batches is not None:
            await self._batches.close()
        async with self._order:
            await self._client.close()
