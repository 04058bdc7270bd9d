"""The HTTP ceiling: the server's own stack (aiohttp low-level `web.Server`, uvloop, the same TLS
settings and certificates) answering every request with a fixed 1 KB JSON body.

No API server can serve a GET faster than this on the same machine with the same client, so
"our GET rate / this rate" is the share of the request time the API machinery itself costs.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import ssl
from multiprocessing.synchronize import Event
from pathlib import Path

import orjson
from aiohttp import web

from bench.client import SATURATED, CpuClock, drive, expect, open_session
from bench.plan import Plan
from bench.procfs import cpu_seconds
from bench.progress import progress
from bench.report import LATENCY_HEADERS, Facts, Section, latency_row
from bench.server import ServerProcess, free_port

BODY_BYTES = 1024


def fixed_body(length: int = BODY_BYTES) -> bytes:
    """A ConfigMap-shaped JSON document of exactly `length` bytes."""
    shell = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ceiling"}, "data": {"payload": ""}}
    padding = length - len(orjson.dumps(shell))
    if padding < 0:
        raise ValueError(f"a body of {length} bytes is too small for the document")
    shell["data"]["payload"] = "x" * padding
    return orjson.dumps(shell)


def _ssl_context(pki: Path) -> ssl.SSLContext:
    """The API server's TLS settings, on its own serving certificate and client CA."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki / "apiserver.crt", pki / "apiserver.key")
    context.load_verify_locations(cafile=str(pki / "client-ca.crt"))
    context.verify_mode = ssl.CERT_OPTIONAL
    context.set_alpn_protocols(["http/1.1"])
    return context


async def _serve(port: int, pki: Path, ready: Event) -> None:
    body = fixed_body()

    async def handle(request: web.BaseRequest) -> web.Response:
        return web.Response(body=body, content_type="application/json")

    server = web.Server(handle, handler_cancellation=False)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    await asyncio.get_running_loop().create_server(server, sock=sock, ssl=_ssl_context(pki), backlog=1024)
    ready.set()
    await asyncio.Event().wait()


def serve(port: int, pki: Path, ready: Event) -> None:
    """Entry point of the ceiling process; it serves until terminated."""
    import uvloop

    uvloop.run(_serve(port, pki, ready))


async def run(server: ServerProcess, plan: Plan) -> tuple[Section, Facts]:
    """Measures GETs of the fixed body at each concurrency of the plan; `server` lends its PKI and credentials."""
    section = Section("Anchor: HTTP ceiling (same stack, fixed 1 KB JSON)", LATENCY_HEADERS)
    facts: Facts = {}
    port = free_port()
    spawn = multiprocessing.get_context("spawn")
    ready = spawn.Event()
    process = spawn.Process(target=serve, args=(port, server.data_dir / "pki", ready), daemon=True)
    process.start()
    try:
        if not await asyncio.get_running_loop().run_in_executor(None, ready.wait, 30):
            raise RuntimeError("the HTTP ceiling server did not start")
        assert process.pid is not None
        clock = CpuClock(lambda: cpu_seconds(process.pid))
        url = f"https://127.0.0.1:{port}/api/v1/namespaces/default/configmaps/ceiling"
        for concurrency, count in plan.anchor_ops.items():
            progress(f"http ceiling: GET x{count:,} with {concurrency} client(s)")
            async with open_session(server.credentials.ssl_context(), concurrency) as session:

                async def get(_: int, session=session) -> None:
                    async with session.get(url) as response:
                        await expect(response, 200)

                await drive(get, count=concurrency * 4, concurrency=concurrency, clock=clock)
                measured = await drive(get, count=count, concurrency=concurrency, clock=clock, repeatable=True)
            section.add(*latency_row("GET fixed 1 KB body", concurrency, measured))
            facts[f"http ceiling/{concurrency}"] = measured.rate
            if measured.client_cpu >= SATURATED * measured.seconds:
                section.notes.append(
                    f"at {concurrency} clients the load process, not this server, was the limit: the real "
                    "ceiling is higher, so ratios to it overstate our share"
                )
    finally:
        process.terminate()
        process.join(10)
    return section, facts
