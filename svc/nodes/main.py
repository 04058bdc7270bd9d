"""`svc-nodes`: simulated nodes for a svc (or any) API server, so workloads run without machines."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from svc.api.brand import PROFILES
from svc.client.aio import ApiError, AsyncRestClient
from svc.client.followed_clock import ClockError, followed_clock
from svc.client.kubeconfig import ClientConfig, KubeconfigError, load_kubeconfig
from svc.nodes.node_objects import KUBELET_VERSION
from svc.nodes.options import Options, parse_options
from svc.nodes.simulator import simulate

log = logging.getLogger("svc.nodes")


def client_config(options: Options) -> ClientConfig:
    if options.kubeconfig:
        config = load_kubeconfig(options.kubeconfig)
        return ClientConfig(**{**config.__dict__, "server": options.master}) if options.master else config
    if options.master:
        return ClientConfig(server=options.master)
    raise KubeconfigError("no configuration has been provided: give --svcconfig (--kubeconfig) or --master")


async def run(options: Options) -> int:
    client = AsyncRestClient(client_config(options), user_agent=f"svc-nodes/{KUBELET_VERSION}")
    try:
        async with contextlib.AsyncExitStack() as stack:
            clock = await stack.enter_async_context(followed_clock(client)) if options.clock == "fake" else client.clock
            task = asyncio.create_task(simulate(options, client, PROFILES[options.brand_profile], clock))
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, task.cancel)
            log.info("simulating %d node(s): %s", options.count, ", ".join(options.node_names()))
            with contextlib.suppress(asyncio.CancelledError):
                await task
    finally:
        with contextlib.suppress(Exception):
            await client.close()
    return 0


def main(argv: list[str] | None = None) -> None:
    options = parse_options(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level=logging.DEBUG if options.verbosity >= 4 else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        raise SystemExit(asyncio.run(run(options)))
    except (KubeconfigError, ApiError, ClockError, OSError) as error:
        print(f"Error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
