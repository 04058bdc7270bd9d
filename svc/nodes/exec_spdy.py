"""The simulated kubelet's `exec` and `attach` over SPDY/3.1 (`v4.channel.k8s.io`), for old clients
and kubectl's fallback from WebSockets.

The client opens one stream per channel, named by its `streamType` header (error, stdin, stdout,
stderr, resize); once those the query asks for are open the canned command runs (or, for attach,
stdin is echoed to stdout until the client closes stdin), the outcome goes on the error stream as a
`Status` as in the WebSocket protocol, and every stream is finished.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from aiohttp import web

from svc.machinery import spdy
from svc.nodes.canned_exec import exit_status, run_canned

PROTOCOL = "v4.channel.k8s.io"


def _flag(request: web.Request, name: str) -> bool:
    return request.query.get(name, "").lower() in ("1", "t", "true")


class SpdyRemoteCommand:
    def __init__(self, request: web.Request, pod_name: str, reader: asyncio.StreamReader, out: spdy.Outgoing) -> None:
        self.request = request
        self.pod_name = pod_name
        self.session = spdy.ServerSession(reader, out, self._stream, self._data)
        self.streams: dict[str, int] = {}
        self.expected = {"error"} | {
            stream
            for stream, flag in (("stdin", "input"), ("stdout", "output"), ("stderr", "error"))
            if _flag(request, flag)
        }
        if _flag(request, "tty"):
            self.expected = (self.expected - {"stderr"}) | {"resize"}
        self.ready = asyncio.Event()
        self.stdin: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=4)

    def _stream(self, stream_id: int, headers: dict[str, str]) -> None:
        self.streams[headers.get("streamtype", "")] = stream_id
        if self.expected <= self.streams.keys():
            self.ready.set()

    async def _data(self, stream_id: int, data: bytes, fin: bool) -> None:
        """Stdin, taken as the command reads it (a few chunks are held)."""
        if stream_id != self.streams.get("stdin"):
            return
        if data:
            await self.stdin.put(data)
        if fin:
            await self.stdin.put(None)

    async def serve(self, attach: bool) -> None:
        """Run the session until the command is done, then finish every stream."""
        session = asyncio.create_task(self.session.run())
        try:
            await asyncio.wait_for(self.ready.wait(), timeout=30)
            argv = self.request.query.getall("command", [])
            if attach:
                while (data := await self.stdin.get()) is not None:
                    if "stdout" in self.streams:
                        await self.session.send(self.streams["stdout"], data)
                code = 0
            else:
                output, code = run_canned(argv, self.pod_name) if argv else ("", 0)
                if output and "stdout" in self.streams:
                    await self.session.send(self.streams["stdout"], output.encode())
            await self.session.send(self.streams["error"], json.dumps(exit_status(argv, code)).encode())
            for stream_id in self.streams.values():
                with contextlib.suppress(OSError):
                    await self.session.send(stream_id, b"", fin=True)
        except (TimeoutError, OSError):
            pass
        finally:
            session.cancel()
