"""Calling a remote service described by a kubeconfig: one JSON review POSTed, one JSON answer back.

Webhook authorizers (and token authenticators) name their remote service the way clients name an API
server: a kubeconfig's cluster (server URL, CA) and user (client certificate or bearer token). A call
that fails transiently (a reset or dropped connection, 429, 500, 504, or an answer carrying
Retry-After) is retried with upstream's default webhook backoff: 500ms, factor 1.5, jitter 0.2, five
attempts. Any other failure (unreachable, non-2xx, an answer that is not JSON) raises
`WebhookCallError` at once; callers decide what a failure means.
"""

from __future__ import annotations

import asyncio
import errno
import random
import ssl
from dataclasses import dataclass
from typing import Any

import aiohttp

from svc.client.kubeconfig import ClientConfig, load_kubeconfig
from svc.client.tls import ssl_context

DEFAULT_TIMEOUT = 30.0
_RETRIED_STATUSES = frozenset({429, 500, 504})


@dataclass(frozen=True)
class Backoff:
    delay: float = 0.5
    factor: float = 1.5
    jitter: float = 0.2
    steps: int = 5


DEFAULT_BACKOFF = Backoff()


class WebhookCallError(Exception):
    """The call failed; the text says how, for logs and reasons."""


class WebhookTimeout(WebhookCallError):
    """No answer within the timeout (metrics tell timeouts from other failures)."""


class _Transient(WebhookCallError):
    pass


def load_webhook_kubeconfig(path: str) -> ClientConfig:
    """The remote service's address and credentials; ValueError when the file or its key material is
    unusable, so that a bad configuration stops the server at start."""
    config = load_kubeconfig(path)
    ssl_context(config)
    return config


class KubeconfigWebhook:
    """One remote service; the connection pool is opened on first use and closed by `close()`."""

    def __init__(
        self, config: ClientConfig, *, timeout: float = DEFAULT_TIMEOUT, backoff: Backoff = DEFAULT_BACKOFF
    ) -> None:
        self._config = config
        self._timeout = timeout
        self._backoff = backoff
        self._ssl: ssl.SSLContext = ssl_context(config)
        self._session: aiohttp.ClientSession | None = None
        self.calls = 0

    async def post(self, body: dict[str, Any]) -> Any:
        """POST `body` and return the decoded answer, retrying transient failures."""
        delay = self._backoff.delay
        for attempt in range(self._backoff.steps):
            try:
                return await self._post_once(body)
            except _Transient:
                if attempt == self._backoff.steps - 1:
                    raise
                await asyncio.sleep(delay * (1 + self._backoff.jitter * random.random()))
                delay *= self._backoff.factor
        raise WebhookCallError("no attempt made")

    async def _post_once(self, body: dict[str, Any]) -> Any:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=self._ssl), timeout=aiohttp.ClientTimeout(total=self._timeout)
            )
        headers = {"Accept": "application/json"}
        if self._config.token:
            headers["Authorization"] = f"Bearer {self._config.token}"
        elif self._config.username:
            auth = aiohttp.BasicAuth(self._config.username, self._config.password)
            headers["Authorization"] = auth.encode()
        self.calls += 1
        try:
            async with self._session.post(self._config.server, json=body, headers=headers) as response:
                if response.status in _RETRIED_STATUSES or "Retry-After" in response.headers:
                    raise _Transient(f"the server answered {response.status}")
                if not 200 <= response.status < 300:
                    raise WebhookCallError(f"the server answered {response.status}")
                return await response.json(content_type=None)
        except aiohttp.ServerDisconnectedError as error:
            raise _Transient(str(error) or "server disconnected") from None
        except aiohttp.ClientOSError as error:
            if error.errno == errno.ECONNRESET:
                raise _Transient(str(error)) from None
            raise WebhookCallError(str(error)) from None
        except TimeoutError:
            raise WebhookTimeout(f"no answer within {self._timeout:g}s") from None
        except (aiohttp.ClientError, ValueError) as error:
            raise WebhookCallError(str(error) or type(error).__name__) from None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
