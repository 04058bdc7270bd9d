"""`svc-apiserver`: parse flags, start the server, serve until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from svc.apiserver.options import parse_options
from svc.apiserver.server import Server
from svc.storage.errors import StorageError


async def _run(server: Server) -> None:
    await server.start()
    print(f"svc-apiserver serving on {server.url}", flush=True)
    print(f"admin kubeconfig: {server.kubeconfig_path}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.stop()


def main(argv: list[str] | None = None) -> None:
    options = parse_options(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname).1s %(name)s: %(message)s")
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    try:
        asyncio.run(_run(Server(options)))
    except (OSError, StorageError) as error:
        print(f"svc-apiserver: {error}", file=sys.stderr)
        raise SystemExit(1) from None
