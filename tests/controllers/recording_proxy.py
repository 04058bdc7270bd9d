"""A recording proxy for tests: plain HTTP on loopback in front of a server.

The API server's metrics and audit events do not say in which media type a request came or went, so
a test that checks what a client puts on the wire points the client here: each request is forwarded
with the server's admin credentials (watch streams included, chunk by chunk) and its method, path,
Accept, Content-Type and the response's Content-Type are recorded.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import yaml
from aiohttp import web

from svc.client.kubeconfig import load_kubeconfig
from svc.client.tls import ssl_context
from svc.testing.harness import RunningServer, free_port


@dataclass(frozen=True)
class Exchange:
    method: str
    path: str
    query: str
    accept: str
    content_type: str
    response_type: str


@dataclass
class RecordingProxy:
    server: RunningServer
    exchanges: list[Exchange] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="recording-proxy", daemon=True)
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def kubeconfig(self, directory: Path) -> Path:
        """A kubeconfig for the proxy (no credentials: the proxy adds the admin's)."""
        path = directory / "proxy.kubeconfig"
        server = f"http://127.0.0.1:{self.port}"
        path.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "proxy", "cluster": {"server": server}}],
                    "users": [{"name": "proxy", "user": {}}],
                    "contexts": [{"name": "proxy", "context": {"cluster": "proxy", "user": "proxy"}}],
                    "current-context": "proxy",
                }
            )
        )
        return path

    async def _start(self) -> None:
        config = load_kubeconfig(self.server.kubeconfig)
        headers = {"Authorization": f"Bearer {config.token}"} if config.token else {}
        connector = aiohttp.TCPConnector(ssl=ssl_context(config), limit=0)
        self._session = aiohttp.ClientSession(config.server, connector=connector, headers=headers)
        app = web.Application(client_max_size=64 << 20)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        self.port = free_port()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        headers = {name: request.headers[name] for name in ("Accept", "Content-Type") if name in request.headers}
        body = await request.read()
        async with self._session.request(
            request.method,
            request.path_qs,
            data=body or None,
            headers=headers,
            timeout=aiohttp.ClientTimeout(total=None),
        ) as answer:
            self.exchanges.append(
                Exchange(
                    request.method,
                    request.path,
                    request.query_string,
                    request.headers.get("Accept", ""),
                    request.headers.get("Content-Type", ""),
                    answer.headers.get("Content-Type", ""),
                )
            )
            kept = {name: answer.headers[name] for name in ("Content-Type",) if name in answer.headers}
            response = web.StreamResponse(status=answer.status, headers=kept)
            await response.prepare(request)
            async for chunk in answer.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response
