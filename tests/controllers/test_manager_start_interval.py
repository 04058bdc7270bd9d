"""`--controller-start-interval`: the manager waits (jittered, between one and two intervals) after
starting each controller, on the injected clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from svc.controllers.manager import ControllerManager
from svc.controllers.options import parse_options
from tests.controllers.fakes import make_context


def test_the_next_controller_starts_only_after_the_interval() -> None:
    async def scenario() -> None:
        options = parse_options(["--controllers=ttl,pv-protection", "--controller-start-interval=10s"])
        context, _ = make_context()
        manager = ControllerManager(context, options.enabled, options, checks=[])
        for informer in context.informers.informers.values():
            informer.synced.set()
        context.informers.start = lambda: None  # type: ignore[method-assign]
        running = asyncio.create_task(manager.run())
        try:
            for _ in range(20):
                await asyncio.sleep(0)
            assert list(manager.tasks) == ["persistentvolume-protection-controller"]
            await context.clock.advance(9.9)
            assert list(manager.tasks) == ["persistentvolume-protection-controller"]
            await context.clock.advance(10.2)
            assert list(manager.tasks) == ["persistentvolume-protection-controller", "ttl-controller"]
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)

    asyncio.run(scenario())


def test_a_controller_waits_only_for_its_own_informers() -> None:
    async def scenario() -> None:
        options = parse_options(["--controllers=ttl,pv-protection"])
        context, _ = make_context()
        manager = ControllerManager(context, options.enabled, options, checks=[])
        never = context.informers.informer("", "v1", "persistentvolumes")
        for informer in context.informers.informers.values():
            if informer is not never:
                informer.synced.set()
        context.informers.start = lambda: None  # type: ignore[method-assign]
        ran: list[str] = []

        def runner(name: str) -> Callable[[], Awaitable[None]]:
            async def run() -> None:
                ran.append(name)
                await asyncio.Event().wait()

            return run

        for name, controller in manager.controllers.items():
            controller.run = runner(name)
        running = asyncio.create_task(manager.run())
        try:
            for _ in range(20):
                await asyncio.sleep(0)
            assert ran == ["ttl-controller"]
            never.synced.set()
            for _ in range(20):
                await asyncio.sleep(0)
            assert sorted(ran) == ["persistentvolume-protection-controller", "ttl-controller"]
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)

    asyncio.run(scenario())
