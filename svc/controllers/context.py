"""What every controller is built from: the client, shared informers, the brand profile, a clock.

Informers are shared: two controllers watching namespaces share one list+watch and one cache, as
client-go's `SharedInformerFactory` arranges. The factory hands out informers while controllers are
built and starts them all afterwards, so no handler misses the initial list. Every cache drops
`metadata.managedFields` (upstream's controller manager sets that transform on its factories too).
A metadata-only informer (the garbage collector's monitors) is the full one when a controller already
asked for it, as upstream's `controller.InformerFactory` prefers the typed informer: one cache and one
watch per resource instead of two.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from svc.api.brand import Profile
from svc.client.aio import AsyncRestClient, resource_path
from svc.client.clock import Clock, RealClock
from svc.client.events import EventRecorder
from svc.client.informer import Informer, RestListerWatcher, trim_for_cache

InformerKey = tuple[str, str, str]


class InformerFactory:
    def __init__(self, client: AsyncRestClient, profile: Profile, *, clock: Clock, resync_period: float = 0.0) -> None:
        self.client = client
        self.profile = profile
        self.clock = clock
        self.resync_period = resync_period
        self.informers: dict[InformerKey, Informer] = {}
        self.metadata_informers: dict[InformerKey, Informer] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def informer(self, group: str, version: str, resource: str) -> Informer:
        """The shared informer of an upstream-named group's resource in every namespace."""
        key = (group, version, resource)
        if key not in self.informers:
            path = resource_path(self.profile.group(group), version, resource)
            self.informers[key] = self._informer(RestListerWatcher(self.client, path))
        return self.informers[key]

    def metadata_informer(self, group: str, version: str, resource: str) -> Informer:
        """An informer whose objects carry at least their metadata, for a served group's resource: the
        full shared one when a controller asked for it, else a shared metadata-only one."""
        key = (self.profile.upstream_group(group), version, resource)
        if key in self.informers:
            return self.informers[key]
        if key not in self.metadata_informers:
            path = resource_path(group, version, resource)
            source = RestListerWatcher(self.client, path, metadata_group=self.profile.meta_group)
            self.metadata_informers[key] = self._informer(source)
        return self.metadata_informers[key]

    def _informer(self, source: RestListerWatcher) -> Informer:
        return Informer(source, clock=self.clock, resync_period=self.resync_period, transform=trim_for_cache)

    def _all(self) -> list[Informer]:
        return [*self.informers.values(), *self.metadata_informers.values()]

    def start(self) -> None:
        """Start every informer not yet running (again after more were asked for, as client-go's)."""
        named = [("/".join(key), informer) for key, informer in self.informers.items()]
        named += [("/".join(key) + " metadata", informer) for key, informer in self.metadata_informers.items()]
        for name, informer in named:
            if id(informer) not in self._tasks:
                self._tasks[id(informer)] = asyncio.create_task(informer.run(), name=name)

    async def wait_for_sync(self) -> None:
        await asyncio.gather(*(informer.synced.wait() for informer in self._all()))

    async def stop(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
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
