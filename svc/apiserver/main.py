"""`svc-apiserver`: parse flags, start the server, serve until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import gc
import resource
import signal
import sys

from svc.apiserver.logs import configure_logging
from svc.apiserver.options import parse_options
from svc.apiserver.server import Server
from svc.storage.errors import StorageError

YOUNG_COLLECTION_THRESHOLD = 20_000


def raise_open_file_limit() -> int:
    """Lift the soft limit on open files to the hard one, as Go programs (upstream's binaries) do at
    start: every connection and watch holds a descriptor, and soft limits are often 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            return soft
    return hard


async def _run(server: Server) -> None:
    await server.start()
    # What start-up loaded (schemas, tables, the watch caches) lives as long as the process: moving
    # it out of the collector's generations keeps full collections from rescanning it, and a larger
    # first generation lets request-sized garbage die young without triggering them.
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])
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
    raise_open_file_limit()
    configure_logging(options.logging)
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
