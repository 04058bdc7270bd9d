"""The simulated pod network, reachable through an HTTP CONNECT endpoint as a konnectivity server is.

The API server (given an egress selector configuration whose `cluster` selection points here) asks
`CONNECT <podIP>:<port>`; the endpoint finds the pod holding that IP and joins the connection to
what the pod's `simulator.svc.io/ports` annotation maps the port to, or to an echo. An address no
running pod holds is a 503, as a proxy that cannot dial answers.
"""

from __future__ import annotations

import asyncio
import contextlib

from svc.client.informer import Informer
from svc.nodes.port_forward import port_targets

_CHUNK = 64 * 1024


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()


class PodNetwork:
    def __init__(self, pods: Informer) -> None:
        self.pods = pods
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> None:
        self._server = await asyncio.start_server(self._serve, host, port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def _target(self, address: str, port: int) -> tuple[str, int] | bool | None:
        """The real address behind podIP:port, None for the echo, False when no pod holds the IP."""
        for pod in self.pods.list():
            status = pod.get("status") or {}
            if address in {entry.get("ip") for entry in status.get("podIPs") or []} | {status.get("podIP")}:
                return port_targets(pod).get(port)
        return False

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            method, authority, *_ = head.split(" ", 2)
            host, _, port = authority.rpartition(":")
            target = self._target(host.strip("[]"), int(port)) if method == "CONNECT" and port.isdigit() else False
            if target is False:
                writer.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
                return
            if target is None:
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await _pipe(reader, writer)
                return
            try:
                inner_reader, inner_writer = await asyncio.open_connection(*target)
            except OSError:
                writer.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
                return
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            try:
                await asyncio.gather(_pipe(reader, inner_writer), _pipe(inner_reader, writer))
            finally:
                inner_writer.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            writer.close()
