"""The simulated kubelet's `portForward`: the WebSocket port-forward protocol onto a "container" port.

As a kubelet's `v4.channel.k8s.io` port forwarding: the `port` query values name the ports; port i
uses channel 2i for data and 2i+1 for errors, and the first frame on each channel carries the port
as a little-endian uint16. Nothing runs in a simulated pod, so a port is served by what the pod's
`simulator.svc.io/ports` annotation maps it to (`8080=127.0.0.1:41234,9090=...`: a real TCP address,
so a test can serve HTTP "inside" the pod), and by a built-in echo otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aiohttp import WSMsgType, web

PORTS_ANNOTATION = "simulator.svc.io/ports"
PROTOCOLS = ("v4.channel.k8s.io",)
_CHUNK = 32 * 1024


def port_targets(pod: dict[str, Any]) -> dict[int, tuple[str, int]]:
    """The pod's container ports mapped to real addresses by its annotation; malformed entries are skipped."""
    text = (pod["metadata"].get("annotations") or {}).get(PORTS_ANNOTATION, "")
    targets = {}
    for entry in text.split(","):
        port, _, address = entry.strip().partition("=")
        host, _, target = address.rpartition(":")
        if port.isdigit() and target.isdigit() and host:
            targets[int(port)] = (host.strip("[]"), int(target))
    return targets


def parse_ports(values: list[str]) -> list[int]:
    """The `port` query values; a kubelet's texts for a missing or bad one (ValueError)."""
    if not values:
        raise ValueError('query parameter "port" is required')
    ports = []
    for value in values:
        if not value.isdigit() or int(value) > 65535:
            raise ValueError(
                f'unable to parse "{value}" as a port: strconv.ParseUint: parsing "{value}": invalid syntax'
            )
        if int(value) == 0:
            raise ValueError(f'port "{value}" must be > 0')
        ports.append(int(value))
    return ports


class _Echo:
    """A port whose "container" writes back what it reads."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes] = asyncio.Queue()

    async def read(self, size: int) -> bytes:
        return await self.queue.get()

    def write(self, data: bytes) -> None:
        self.queue.put_nowait(data)

    def write_eof(self) -> None:
        self.queue.put_nowait(b"")

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        return None


async def _open(target: tuple[str, int] | None) -> tuple[Any, Any]:
    if target is None:
        echo = _Echo()
        return echo, echo
    return await asyncio.open_connection(*target)


async def _pump(reader: Any, socket: web.WebSocketResponse, channel: int) -> None:
    """Container output onto the port's data channel until the container closes it."""
    while data := await reader.read(_CHUNK):
        await socket.send_bytes(bytes([channel]) + data)


async def serve_port_forward(request: web.Request, pod: dict[str, Any]) -> web.StreamResponse:
    """Forward each requested port of `pod` over one WebSocket, as a kubelet does."""
    try:
        ports = parse_ports(request.query.getall("port", []))
    except ValueError as error:
        return web.Response(status=400, text=str(error))
    socket = web.WebSocketResponse(protocols=PROTOCOLS)
    await socket.prepare(request)
    targets = port_targets(pod)
    name = pod["metadata"]["name"]
    writers: dict[int, Any] = {}
    pumps = []
    for index, port in enumerate(ports):
        prefix = port.to_bytes(2, "little")
        await socket.send_bytes(bytes([2 * index]) + prefix)
        await socket.send_bytes(bytes([2 * index + 1]) + prefix)
        try:
            reader, writer = await _open(targets.get(port))
        except OSError as error:
            message = f"error forwarding port {port} to pod {name}: failed to connect to localhost:{port}: {error}"
            await socket.send_bytes(bytes([2 * index + 1]) + message.encode())
            continue
        writers[2 * index] = writer
        pumps.append(asyncio.create_task(_pump(reader, socket, 2 * index)))
    receiving = asyncio.create_task(_receive(socket, writers))
    try:
        if pumps:
            await asyncio.wait(pumps)
        else:
            await receiving
    finally:
        receiving.cancel()
        for task in pumps:
            task.cancel()
        for writer in writers.values():
            writer.close()
        await socket.close()
    return socket


async def _receive(socket: web.WebSocketResponse, writers: dict[int, Any]) -> None:
    """Client frames onto the container ports; the end of the connection closes their input."""
    async for message in socket:
        if message.type != WSMsgType.BINARY or not message.data:
            continue
        writer = writers.get(message.data[0])
        if writer is not None and len(message.data) > 1:
            writer.write(message.data[1:])
            await writer.drain()
    for writer in writers.values():
        with contextlib.suppress(OSError):
            writer.write_eof()
