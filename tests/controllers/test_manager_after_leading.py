"""Controllers are built, and the lines about those that do not run are logged, only once this
process leads (upstream's `OnStartedLeading` runs `BuildControllers`): a standby says nothing about them."""

from __future__ import annotations

import asyncio
import logging

import pytest

from svc.controllers import catalog
from svc.controllers.main import _lead_and_run
from svc.controllers.manager import ControllerManager
from svc.controllers.options import parse_options
from tests.controllers.fakes import make_context

DISABLED = '"Warning: controller is disabled" controller="ttl-controller"'
CLOUD = '"Skipping a cloud provider controller" controller="cloud-node-lifecycle-controller"'
SKIPPED = '"Warning: skipping controller" controller="cloud-node-lifecycle-controller"'


class StubElector:
    """Leads once `lead` is set, then keeps the Lease until cancelled."""

    def __init__(self) -> None:
        self.lead = asyncio.Event()

    async def acquire(self) -> None:
        await self.lead.wait()

    async def keep_renewing(self) -> None:
        await asyncio.Event().wait()


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def test_lines_about_controllers_that_do_not_run_come_only_after_leading(caplog: pytest.LogCaptureFixture) -> None:
    # No controller here runs, so the manager holds on without informers until it is stopped.
    options = parse_options(["--controllers=cloud-node-lifecycle-controller"])

    async def scenario() -> None:
        context, _ = make_context()
        elector = StubElector()
        stopping = asyncio.Event()
        built: list[ControllerManager] = []

        def build() -> ControllerManager:
            built.append(ControllerManager(context, catalog.names("svc-apiserver"), options, checks=[]))
            return built[-1]

        running = asyncio.create_task(_lead_and_run(options, elector, build, stopping))  # type: ignore[arg-type]
        await settle()
        assert built == []
        assert not any("controller=" in line for line in caplog.messages)
        elector.lead.set()
        await settle()
        assert len(built) == 1 and not built[0].controllers
        lines = caplog.messages
        assert DISABLED in lines
        assert lines.index(CLOUD) < lines.index(SKIPPED)
        assert not running.done()
        stopping.set()
        assert await asyncio.wait_for(running, 5) == 0

    with caplog.at_level(logging.INFO, logger="svc.controllers"):
        asyncio.run(scenario())
