"""Starting the enabled controllers once this process leads, and telling health checks how they run.

Order matters as in upstream's `BuildControllers` and `RunControllers`: every controller is built
first (each asks the shared factory for the informers it needs and registers its handlers), then the
informers start, and workers begin only after every cache has synced, so no sync acts on a
half-listed cache. A manager with no controller to run holds on until it is stopped, as upstream's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
from typing import Any

from svc.apiserver.health import HealthCheck
from svc.controllers import catalog, unavailable
from svc.controllers.context import ControllerContext, ControllerInformers
from svc.controllers.credentials import Credentials

log = logging.getLogger(__name__)


def _log_gated(name: str, gates: tuple[str, ...]) -> None:
    listed = ",".join(f'"{gate}"' for gate in gates)
    log.info('"Controller is disabled by a feature gate" controller="%s" requiredFeatureGates=[%s]', name, listed)


def _log_declined(name: str, feature_gates: Any) -> None:
    """Upstream's lines for a controller whose start function declines to run it."""
    if name in unavailable.CLOUD:
        log.info('"Skipping a cloud provider controller" controller="%s"', name)
    elif name == unavailable.STORAGE_VERSION_GC and not all(
        feature_gates.enabled(gate) for gate in unavailable.STORAGE_VERSION_GC_GATES
    ):
        _log_gated(name, unavailable.STORAGE_VERSION_GC_GATES)
    else:
        log.info("controller %s is not started: %s", name, unavailable.REASONS.get(name, "its flags leave it off"))


class ControllerManager:
    def __init__(
        self, context: ControllerContext, names: list[str], options: Any, *, checks: list[HealthCheck]
    ) -> None:
        """Build the controllers of `names` (those under this manager's Lease, upstream's descriptors)
        that `--controllers` enables. Made once this process leads, as upstream's `BuildControllers`,
        so only a leader logs about controllers: "controller is disabled" for those `--controllers`
        leaves off, "skipping controller" (after the reason) for those that will not run. `checks` is
        the daemon's health check list; a controller's check joins it when the controller starts."""
        self.context = context
        self.checks = checks
        self.credentials = Credentials(context, per_controller=options.use_service_account_credentials)
        self.informers: dict[str, ControllerInformers] = {}
        apiserver_name = context.profile.apiserver_name
        selected = set(catalog.select(options.controllers, apiserver_name)[0])
        self.controllers = {}
        for name in names:
            if name not in selected:
                log.info('"Warning: controller is disabled" controller="%s"', name)
                continue
            controller = self._build(name, options)
            if controller is None:
                log.info('"Warning: skipping controller" controller="%s"', name)
            else:
                self.controllers[name] = controller
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.start_interval: float = options.controller_start_interval

    def _build(self, name: str, options: Any) -> Any:
        """The controller, or None (said why) when a feature gate it requires is off, its own flag
        leaves it off (the garbage collector's `--enable-garbage-collector=false`) or its start declines."""
        apiserver_name = self.context.profile.apiserver_name
        if not catalog.gates_allow(name, apiserver_name, options.feature_gates):
            _log_gated(name, catalog.required_gates(name, apiserver_name))
            return None
        if name not in options.enabled:
            return None
        informers = ControllerInformers(self.context.informers)  # type: ignore[arg-type]
        context = dataclasses.replace(self.credentials.context_for(name), informers=informers)
        controller = catalog.BUILT[catalog.key(name, apiserver_name)](context, options)
        if controller is None:
            _log_declined(name, options.feature_gates)
        else:
            self.informers[name] = informers
        return controller

    async def run(self) -> None:
        """Run until cancelled; the informers stop with it."""
        factory = self.context.informers
        factory.start()
        try:
            for name, controller in self.controllers.items():
                log.info("starting controller %s", name)
                self.tasks[name] = asyncio.create_task(self._run_synced(name, controller), name=name)
                self.checks.append(HealthCheck(name, self._check(name)))
                if self.start_interval > 0:
                    # upstream: wait.Jitter(--controller-start-interval, 1.0) after each start
                    await self.context.clock.sleep(self.start_interval * (1 + random.random()))
            if self.tasks:
                await asyncio.gather(*self.tasks.values())
            else:
                await asyncio.Event().wait()
        finally:
            for task in self.tasks.values():
                task.cancel()
            await asyncio.gather(*self.tasks.values(), return_exceptions=True)
            await factory.stop()
            await self.credentials.close()

    async def _run_synced(self, name: str, controller: Any) -> None:
        """The controller's run, once the informers it asked for have synced (upstream's
        "Waiting for caches to sync" in each controller)."""
        informers = self.informers.get(name)
        if informers is not None and informers.used:
            log.info('"Waiting for caches to sync" controller="%s"', name)
            await informers.wait_for_sync()
            log.info('"Caches are synced" controller="%s"', name)
        await controller.run()

    def _check(self, name: str) -> Any:
        """Fails once the controller's workers have stopped."""

        async def running() -> None:
            task = self.tasks.get(name)
            if task is None or task.done():
                raise RuntimeError(f"controller {name} is not running")

        return running
