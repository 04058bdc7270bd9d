"""Controllers outlive the errors they can outlive (issue 18): a failed pass, discovery that is
down, a request that times out is logged and retried, never the end of the controller's task, which
would stop the whole daemon."""

from __future__ import annotations

import asyncio

from svc.controllers.garbagecollector import RESYNC_MONITORS, GarbageCollector
from svc.controllers.legacytokencleaner import SYNC_INTERVAL, LegacyTokenCleaner
from tests.controllers.fakes import make_context, seed_core_discovery, served
from tests.controllers.test_nodelifecycle_sync import setup, writes


def test_discovery_failing_at_start_is_retried_a_period_later_and_the_collector_keeps_running() -> None:
    async def scenario() -> None:
        context, client = make_context()
        seed_core_discovery(client, served("configmaps", "ConfigMap"))
        context.informers.start = lambda: None  # type: ignore[method-assign]
        client.failures["get"] = ConnectionError("GET /api: connection refused")
        gc = GarbageCollector(context)
        running = asyncio.create_task(gc.run())
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert not running.done()
        assert not gc.monitors
        client.failures.clear()
        await context.clock.advance(RESYNC_MONITORS)  # type: ignore[attr-defined]
        await context.clock.advance(RESYNC_MONITORS)  # type: ignore[attr-defined]
        assert list(gc.monitors) == [("", "v1", "configmaps")]
        assert not running.done()
        running.cancel()

    asyncio.run(scenario())


def test_a_monitor_that_never_lists_holds_the_workers_back_one_period_only() -> None:
    async def scenario() -> None:
        context, client = make_context()
        seed_core_discovery(client, served("configmaps", "ConfigMap"))
        context.informers.start = lambda: None  # type: ignore[method-assign]
        gc = GarbageCollector(context)
        running = asyncio.create_task(gc.run())
        gc.attempt_to_delete.add("uid-unknown")
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert len(gc.attempt_to_delete) == 1
        await context.clock.advance(RESYNC_MONITORS)  # type: ignore[attr-defined]
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert len(gc.attempt_to_delete) == 0
        running.cancel()

    asyncio.run(scenario())


def test_a_pass_that_times_out_is_logged_and_the_next_day_runs_again() -> None:
    async def scenario() -> None:
        context, client = make_context()
        client.failures["get"] = TimeoutError()
        cleaner = LegacyTokenCleaner(context)
        running = asyncio.create_task(cleaner.run())
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert not running.done()
        await context.clock.advance(SYNC_INTERVAL)  # type: ignore[attr-defined]
        assert [verb for verb, *_ in client.calls] == ["get", "get"]
        running.cancel()

    asyncio.run(scenario())


def test_a_node_monitor_pass_that_times_out_is_logged_and_the_next_one_runs() -> None:
    async def scenario() -> None:
        controller, client = setup("n1")
        client.failures["update"] = TimeoutError()
        running = asyncio.create_task(controller.run())
        await controller.context.clock.advance(0)  # type: ignore[attr-defined]
        await controller.context.clock.advance(60)  # type: ignore[attr-defined]
        assert writes(client, "/status")
        assert not running.done()
        client.failures.clear()
        client.calls.clear()
        await controller.context.clock.advance(controller.monitor_period)  # type: ignore[attr-defined]
        assert writes(client, "/status")
        running.cancel()

    asyncio.run(scenario())
