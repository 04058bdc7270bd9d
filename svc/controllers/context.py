"""What every controller is built from: the client, shared informers, the brand profile, a clock.

Informers are shared: two controllers watching namespaces share one list+watch and one cache, as
client-go's `SharedInformerFactory` arranges. The factory hands out informers while controllers are
built and starts them all afterwards, so no handler misses the initial list.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from svc.api.brand import Profile
from svc.client.aio import AsyncRestClient, resource_path
from svc.client.clock import Clock, RealClock
from svc.client.events import EventRecorder
from svc.client.informer import Informer, RestListerWatcher


class InformerFactory:
    def __init__(self, client: AsyncRestClient, profile: Profile, *, clock: Clock, resync_period: float = 0.0) -> None:
        self.client = client
        self.profile = profile
        self.clock = clock
        self.resync_period = resync_period
        self.informers: dict[tuple[str, str, str], Informer] = {}
        self._tasks: list[asyncio.Task[None]] = []

    def informer(self, group: str, version: str, resource: str) -> Informer:
        """The shared informer of an upstream-named group's resource in every namespace."""
        key = (group, version, resource)
        if key not in self.informers:
            path = resource_path(self.profile.group(group), version, resource)
            self.informers[key] = Informer(
                RestListerWatcher(self.client, path), clock=self.clock, resync_period=self.resync_period
            )
        return self.informers[key]

    def start(self) -> None:
        for key, informer in self.informers.items():
            if not any(task.get_name() == "/".join(key) for task in self._tasks):
                self._tasks.append(asyncio.create_task(informer.run(), name="/".join(key)))

    async def wait_for_sync(self) -> None:
        await asyncio.gather(*(informer.synced.wait() for informer in self.informers.values()))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()


@dataclass
class ControllerContext:
    client: AsyncRestClient
    profile: Profile
    informers: InformerFactory
    clock: Clock = field(default_factory=RealClock)
    root_ca: bytes = b""

    def recorder(self, component: str) -> EventRecorder:
        """An event recorder reporting as `component` (upstream's per-controller event source)."""
        return EventRecorder(self.client, component, clock=self.clock)
