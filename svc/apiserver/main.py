"""`svc-apiserver`: parse flags, start the server, serve until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import gc
import resource
import signal
import sys
from urllib.parse import urlsplit

from svc.apiserver.logs import LogSettings, configure_logging
from svc.apiserver.options import parse_options
from svc.apiserver.server import Server
from svc.apiserver.shutdown import shut_down
from svc.machinery.collector import freeze_after_long_collections
from svc.storage.errors import StorageError

YOUNG_COLLECTION_THRESHOLD = 20_000
WILDCARD_HOSTS = ("0.0.0.0", "::")


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
    freeze_after_long_collections()
    print(serving_line(server.bound_url, server.url), flush=True)
    print(f"admin kubeconfig: {server.kubeconfig_path}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await shut_down(server)
    await server.stop()


def serving_line(bound_url: str, advertised_url: str) -> str:
    """The start-up line names the address the listener is bound to, so a server reachable from every
    interface says so rather than showing only the loopback address its kubeconfig uses."""
    host = urlsplit(bound_url).hostname
    if host in WILDCARD_HOSTS:
        scope = "all IPv4 interfaces" if host == "0.0.0.0" else "all interfaces"
        return (
            f"svc-apiserver serving on {bound_url} ({scope}; --bind-address=127.0.0.1 restricts it to this host), "
            f"advertised as {advertised_url}"
        )
    if bound_url != advertised_url:
        return f"svc-apiserver serving on {bound_url}, advertised as {advertised_url}"
    return f"svc-apiserver serving on {bound_url}"


def main(argv: list[str] | None = None) -> None:
    configure_logging(LogSettings())  # so that warnings about the flags themselves are printed
    options = parse_options(sys.argv[1:] if argv is None else argv)
    raise_open_file_limit()
    configure_logging(options.logging)
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    try:
        server = Server(options)
    except ValueError as error:  # a plugin's configuration (the admission configuration file)
        print(f"Error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    try:
        asyncio.run(_run(server))
    except (OSError, StorageError, ValueError) as error:  # ValueError: a plugin that cannot serve (a signer)
        print(f"svc-apiserver: {error}", file=sys.stderr)
        raise SystemExit(1) from None
