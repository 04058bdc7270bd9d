"""The asyncio REST client the controllers use: JSON or Protobuf requests (`ContentConfig`), Status
errors as exceptions, watches.

One aiohttp session (kept-alive connections, the kubeconfig's TLS material and credentials) per
client. Transport failures surface as `ConnectionError` (an `OSError`), whatever aiohttp called them,
so callers retry on one exception type. Refusals come back as `ApiError` carrying the server's
`Status`, so a controller branches on `reason` (`NotFound`, `AlreadyExists`, `Conflict`, `Expired`)
as client-go's `apierrors` helpers do.
"""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import aiohttp
import orjson

from svc.client.clock import Clock, RealClock
from svc.client.content import ContentConfig
from svc.client.kubeconfig import ClientConfig
from svc.client.metrics import installed
from svc.client.tls import ssl_context
from svc.client.workqueue import TokenBucket

Obj = dict[str, Any]


class ApiError(Exception):
    """A request the server refused, with its `Status` body (or one made up from the HTTP status)."""

    def __init__(self, code: int, status: Obj) -> None:
        super().__init__(f"{code} {status.get('reason', '')}: {status.get('message', '')}")
        self.code = code
        self.status = status

    @property
    def reason(self) -> str:
        return str(self.status.get("reason", ""))

    @property
    def message(self) -> str:
        """The Status message alone, which is how upstream's API errors print themselves."""
        return str(self.status.get("message", "")) or str(self)


def error_message(error: Exception) -> str:
    """How upstream's controllers print an error: an API error's Status message, else the error."""
    return error.message if isinstance(error, ApiError) else str(error)


def resource_path(
    group: str, version: str, resource: str, *, namespace: str = "", name: str = "", subresource: str = ""
) -> str:
    """`/api/v1/namespaces/ns/pods/name/status` and the like, from served group names."""
    parts = ["/api", version] if not group else ["/apis", group, version]
    if namespace:
        parts += ["namespaces", quote(namespace, safe="")]
    parts.append(resource)
    if name:
        parts.append(quote(name, safe=""))
    if subresource:
        parts.append(subresource)
    return "/".join(parts)


class AsyncRestClient:
    def __init__(
        self,
        config: ClientConfig,
        *,
        user_agent: str = "svc-controller-manager",
        timeout: float = 30.0,
        qps: float = 0.0,
        burst: int = 0,
        clock: Clock | None = None,
        content: ContentConfig | None = None,
    ):
        """`qps`/`burst` limit requests (not watch streams) as client-go's `--kube-api-qps`; 0 is no limit.
        `content` chooses JSON (the default) or Protobuf for built-in kinds."""
        self.config = config
        self.content = content or ContentConfig()
        self.user_agent = user_agent
        self.timeout = timeout
        self.clock = clock or RealClock()
        self._limiter = TokenBucket(qps, max(burst, 1), clock=self.clock) if qps > 0 else None
        self._headers = {"User-Agent": user_agent, "Accept": "application/json"}
        if config.token:
            self._headers["Authorization"] = f"Bearer {config.token}"
        elif config.username:
            credentials = base64.b64encode(f"{config.username}:{config.password}".encode()).decode()
            self._headers["Authorization"] = f"Basic {credentials}"
        self._ssl = ssl_context(config) if config.server.startswith("https") else None
        self._session: aiohttp.ClientSession | None = None
        self._metrics = installed()
        self._host = urlsplit(config.server).netloc

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            # No connection limit: every open watch holds a connection (HTTP/1.1 has no multiplexing),
            # and a controller such as the garbage collector watches dozens of resources at once.
            connector = aiohttp.TCPConnector(ssl=self._ssl if self._ssl is not None else False, limit=0)
            self._session = aiohttp.ClientSession(
                base_url=self.config.server.rstrip("/"), connector=connector, headers=self._headers
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> Obj:
        if self._limiter is not None:
            await self.clock.sleep(self._limiter.delay())
        data = None
        if body is not None:
            data, content_type = self.content.body(body, content_type)
        headers = {
            **({"Accept": self.content.accept(path)} if self.content.protobuf else {}),
            **(headers or {}),
            **({"Content-Type": content_type} if data is not None else {}),
        }
        timeout = aiohttp.ClientTimeout(total=self.timeout)
        started, code = time.perf_counter(), "<error>"
        try:
            async with self.session.request(
                method, path, data=data, params=params, headers=headers, timeout=timeout
            ) as response:
                payload = await response.read()
                code = str(response.status)
        except aiohttp.ClientError as error:
            raise ConnectionError(f"{method} {path}: {error}") from error
        finally:
            if self._metrics is not None:
                self._metrics.request(method, self._host, code, time.perf_counter() - started)
        return self._decoded(response.status, response.content_type, payload)

    def _decoded(self, code: int, content_type: str, payload: bytes) -> Obj:
        try:
            decoded = self.content.decode(content_type, payload) if payload else {}
        except ValueError:
            decoded = {"message": payload[:200].decode("utf-8", "replace")}
        if code >= 400:
            status = decoded if isinstance(decoded, dict) and decoded.get("kind") == "Status" else {}
            raise ApiError(code, status or {"code": code, "message": str(decoded.get("message", ""))})
        return decoded

    async def get(self, path: str, **params: str) -> Obj:
        return await self.request("GET", path, params=params or None)

    async def create(self, path: str, body: Obj) -> Obj:
        return await self.request("POST", path, body=body)

    async def update(self, path: str, body: Obj) -> Obj:
        return await self.request("PUT", path, body=body)

    async def patch(
        self, path: str, body: Any, *, patch_type: str = "merge", params: Mapping[str, str] | None = None
    ) -> Obj:
        content_type = {
            "merge": "application/merge-patch+json",
            "json": "application/json-patch+json",
            "strategic": "application/strategic-merge-patch+json",
            "apply": "application/apply-patch+yaml",
        }[patch_type]
        return await self.request("PATCH", path, body=body, params=params, content_type=content_type)

    async def apply(self, path: str, body: Obj, *, field_manager: str, force: bool = True) -> Obj:
        """Server-side apply, as upstream controllers write the fields they own (status, mostly)."""
        params = {"fieldManager": field_manager, **({"force": "true"} if force else {})}
        return await self.patch(path, body, patch_type="apply", params=params)

    async def delete(self, path: str, body: Obj | None = None) -> Obj:
        return await self.request("DELETE", path, body=body)

    async def watch(
        self, path: str, params: Mapping[str, str], *, headers: Mapping[str, str] | None = None
    ) -> AsyncIterator[Obj]:
        """The watch events of `path` as decoded dicts; ends when the server ends the stream.

        JSON lines are split here rather than by aiohttp's `readline`, whose buffer limit (128 KiB) is
        smaller than the largest object a server stores."""
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.timeout)
        query = {**params, "watch": "true"}
        if self.content.protobuf:
            headers = {"Accept": self.content.accept(path), **(headers or {})}
        try:
            async with self.session.get(path, params=query, headers=headers, timeout=timeout) as response:
                if response.status != 200:
                    self._decoded(response.status, response.content_type, await response.read())
                if self.content.is_protobuf(response.content_type):
                    async for event in self.content.watch_events(response.content.iter_any()):
                        yield event
                    return
                pending = b""
                async for chunk in response.content.iter_any():
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        if line.strip():
                            yield orjson.loads(line)
        except aiohttp.ClientError as error:
            raise ConnectionError(f"watch {path}: {error}") from error


def has_cause(error: ApiError, cause_type: str) -> bool:
    """Whether the Status details name a cause of this type (`NamespaceTerminating`, ...)."""
    details = error.status.get("details") or {}
    return any(cause.get("type") == cause_type for cause in details.get("causes") or [])
