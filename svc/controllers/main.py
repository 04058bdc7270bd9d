"""`svc-controller-manager`: the controller daemon (spec 3 §1.1).

It connects with the kubeconfig (or `--master`), serves its health endpoints, waits to lead (a Lease
in the system namespace, unless `--leader-elect=false`) and then builds and runs the enabled controllers. Losing
the lease ends the process with status 1, as upstream's `leaderelection lost`, so a supervisor
restarts it as a fresh candidate rather than leaving two leaders running.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from svc.api.brand import PROFILES
from svc.apiserver.health import HealthCheck
from svc.client.aio import AsyncRestClient
from svc.client.clock import Clock
from svc.client.content import JSON, ContentConfig
from svc.client.followed_clock import ClockError, followed_clock
from svc.client.kubeconfig import ClientConfig, KubeconfigError, load_kubeconfig
from svc.client.metrics import ClientMetrics, install
from svc.controllers import catalog, leader_migration, log_output
from svc.controllers.context import ControllerContext, InformerFactory, jittered_resync
from svc.controllers.delegated_auth import DelegatedAuth
from svc.controllers.delegated_certs import LookupFailed
from svc.controllers.leaderelection import LeaderElectionConfig, LeaderElector
from svc.controllers.manager import ControllerManager
from svc.controllers.options import Options, parse_options
from svc.controllers.serving import start_serving
from svc.machinery.collector import freeze_after_long_collections
from svc.version import UPSTREAM_VERSION

log = logging.getLogger("svc.controllers")


def client_config(options: Options) -> ClientConfig:
    """The kubeconfig's cluster and user, with `--master` replacing the server address."""
    if options.kubeconfig:
        config = load_kubeconfig(options.kubeconfig)
        if options.master:
            config = ClientConfig(**{**config.__dict__, "server": options.master})
        return config
    if options.master:
        return ClientConfig(server=options.master)
    raise KubeconfigError("no configuration has been provided: give --svcconfig (--kubeconfig) or --master")


def root_ca(options: Options, config: ClientConfig) -> bytes:
    """`--root-ca-file`, else the CA the kubeconfig trusts for the API server (upstream's fallback)."""
    if options.root_ca_file:
        return Path(options.root_ca_file).read_bytes()
    if config.ca_data:
        return config.ca_data
    return Path(config.ca_file).read_bytes() if config.ca_file else b""


def content_config(options: Options) -> ContentConfig:
    """`--svc-api-content-type`: upstream accepts any value and fails only when a body has no serializer
    for it; here a type that is neither the brand's Protobuf nor JSON is said once and JSON is used."""
    profile = PROFILES[options.brand_profile]
    wanted = options.api_content_type or JSON
    content = ContentConfig.for_content_type(wanted, profile)
    if not content.protobuf and wanted.partition(";")[0].strip().lower() != JSON:
        log.warning("no serializer for --svc-api-content-type=%s: requests are sent as %s", wanted, JSON)
    return content


async def run(options: Options) -> int:
    metrics = ClientMetrics()
    install(metrics)  # before the client, queues and elector are made, which report to it
    ProcessCollector(registry=metrics.registry)
    PlatformCollector(registry=metrics.registry)
    GCCollector(registry=metrics.registry)
    try:
        return await _run(options, metrics)
    finally:
        install(None)


async def _run(options: Options, metrics: ClientMetrics) -> int:
    config = client_config(options)
    profile = PROFILES[options.brand_profile]
    agent = f"{profile.apiserver_name.removesuffix('-apiserver')}-controller-manager/{UPSTREAM_VERSION}"
    client = AsyncRestClient(
        config, user_agent=agent, qps=options.api_qps, burst=options.api_burst, content=content_config(options)
    )
    auth = DelegatedAuth(options.delegation, profile, agent)
    try:
        async with contextlib.AsyncExitStack() as stack:
            clock = await stack.enter_async_context(followed_clock(client)) if options.clock == "fake" else client.clock
            return await _run_with(options, config, client, clock, metrics, auth)
    finally:
        await auth.close()
        await client.close()


async def _run_with(
    options: Options,
    config: ClientConfig,
    client: AsyncRestClient,
    clock: Clock,
    metrics: ClientMetrics,
    auth: DelegatedAuth,
) -> int:
    """The daemon with every control loop on `clock` (the client's own rate limit stays in real time)."""
    profile = PROFILES[options.brand_profile]
    component = profile.apiserver_name.removesuffix("-apiserver") + "-controller-manager"

    def manager_of(names: list[str]) -> Callable[[], ControllerManager]:
        """Builds, once called (when its Lease is held), the context and controllers of `names`."""

        def build() -> ControllerManager:
            resync = jittered_resync(options.min_resync_period)
            informers = InformerFactory(client, profile, clock=clock, resync=resync)
            context = ControllerContext(client, profile, informers, clock=clock, root_ca=root_ca(options, config))
            return ControllerManager(context, names, options, checks=checks)

        return build

    checks: list[HealthCheck] = []
    group = profile.group("coordination.k8s.io")
    elector = _elector(options, client, group, clock)
    migration = None
    main_controllers = catalog.names(profile.apiserver_name)
    if elector is not None and options.leader_migration is not None:
        log.info("starting leader migration")
        main_controllers, migrated = leader_migration.split(options.leader_migration, main_controllers, component)
        lock = _elector(options, client, group, clock, name=options.leader_migration.leader_name)
        assert lock is not None
        migration = (lock, manager_of(migrated))
    if elector is not None:
        checks.append(HealthCheck("leaderElection", elector.check))
    await auth.start(profile.system_namespace)
    runner = await start_serving(options, checks, metrics=metrics, auth=auth)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    try:
        return await _lead_and_run(options, elector, manager_of(main_controllers), stopping, migration)
    finally:
        if runner is not None:
            await runner.cleanup()


def _elector(
    options: Options, client: AsyncRestClient, group: str, clock: Clock, *, name: str = ""
) -> LeaderElector | None:
    """The candidate for the main Lease, or for `name` (the leader migration Lease)."""
    if not options.leader_elect:
        return None
    config = LeaderElectionConfig(
        namespace=options.resource_namespace,
        name=name or options.resource_name,
        identity=options.identity,
        lease_duration=options.lease_duration,
        renew_deadline=options.renew_deadline,
        retry_period=options.retry_period,
        coordination_group=group,
    )
    return LeaderElector(client, config, clock=clock)


async def _run_migrated(elector: LeaderElector, build: Callable[[], ControllerManager]) -> None:
    """The migrated controllers under their own Lease, built once it is held; returns when that Lease
    is lost, raises when a controller fails."""
    await elector.acquire()
    log.info("leader migration: starting migrated controllers.")
    running = asyncio.create_task(build().run(), name="migrated-controllers")
    renewing = asyncio.create_task(elector.keep_renewing())
    try:
        await asyncio.wait({running, renewing}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            running.result()
            await renewing
    finally:
        for task in (running, renewing):
            task.cancel()
        await asyncio.gather(running, renewing, return_exceptions=True)


async def _lead_and_run(
    options: Options,
    elector: LeaderElector | None,
    build: Callable[[], ControllerManager],
    stopping: asyncio.Event,
    migration: tuple[LeaderElector, Callable[[], ControllerManager]] | None = None,
) -> int:
    """Wait to lead (unless leader election is off), then build and run the controllers (upstream's
    `OnStartedLeading`); the status to exit with."""
    if elector is not None:
        acquiring = asyncio.create_task(elector.acquire())
        stop_wait = asyncio.create_task(stopping.wait())
        await asyncio.wait({acquiring, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
        if stopping.is_set():
            acquiring.cancel()
            await asyncio.gather(acquiring, return_exceptions=True)
            return 0
        stop_wait.cancel()
    if migration is not None:
        log.info("leader migration: starting main controllers.")
    running = asyncio.create_task(build().run(), name="controllers")
    watched = {running, asyncio.create_task(stopping.wait())}
    renewing = asyncio.create_task(elector.keep_renewing()) if elector is not None else None
    if renewing is not None:
        watched.add(renewing)
    # upstream takes the migration Lease only once the main one is held
    migrating = asyncio.create_task(_run_migrated(*migration)) if migration is not None else None
    if migrating is not None:
        watched.add(migrating)
    await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
    for task in watched:
        task.cancel()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(asyncio.gather(*watched, return_exceptions=True), options.controller_shutdown_timeout)
    if renewing is not None and renewing.done() and not renewing.cancelled() and not stopping.is_set():
        log.error("leaderelection lost")
        return 1
    if migrating is not None and migrating.done() and not migrating.cancelled() and not stopping.is_set():
        if migrating.exception() is not None:
            log.error("migrated controllers stopped: %s", migrating.exception())
        else:
            log.error("migration leaderelection lost")
        return 1
    if running.done() and not running.cancelled() and running.exception() is not None:
        log.error("controllers stopped: %s", running.exception())
        return 1
    return 0


def main(argv: list[str] | None = None) -> None:
    options = parse_options(sys.argv[1:] if argv is None else argv)
    log_output.configure(options.text_output)
    try:
        # as the API server: uvloop's SSL transport mallocs its read buffer lazily where asyncio's fills
        # 256 KiB per connection, and the daemon keeps one connection per watched resource
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    # The informer caches grow after start-up; the daemon (not a library user of the manager, such as
    # a test process) moves what survives a long collection out of the collector's generations.
    freeze_after_long_collections()
    try:
        raise SystemExit(asyncio.run(run(options)))
    except (KubeconfigError, ClockError, LookupFailed, OSError) as error:
        print(f"Error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
