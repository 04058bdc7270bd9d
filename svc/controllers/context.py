"""What every controller is built from: the client, shared informers, the brand profile, a clock.

Informers are shared: two controllers watching namespaces share one list+watch and one cache, as
client-go's `SharedInformerFactory` arranges. The factory hands out informers while controllers are
built and starts them all afterwards, so no handler misses the initial list. Every cache drops
`metadata.managedFields` (upstream's controller manager sets that transform on its factories too).
A metadata-only informer (the garbage collector's monitors) is the full one when a controller already
asked for it, as upstream's `controller.InformerFactory` prefers the typed informer: one cache and one
watch per resource instead of two.

Resync periods are jittered as upstream's `ResyncPeriod`: each draw lies in [`--min-resync-period`,
twice it), so that controller managers (and the factories within one) do not resync in lock-step. As
upstream draws once per factory (its typed factory and its metadata factory, each made when a process
starts leading), every typed informer here shares one draw and every metadata-only informer another.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from svc.api.brand import Profile
from svc.client.aio import AsyncRestClient, resource_path
from svc.client.clock import Clock, RealClock
from svc.client.events import EventRecorder
from svc.client.informer import Informer, RestListerWatcher, trim_for_cache

InformerKey = tuple[str, str, str]
ResyncPeriod = Callable[[], float]


def no_resync() -> float:
    """A resync period of zero: handlers hear only changes (upstream's `NoResyncPeriodFunc`)."""
    return 0.0


def jittered_resync(minimum: float, *, rand: Callable[[], float] = random.random) -> ResyncPeriod:
    """Upstream's `ResyncPeriod`: every call draws a period in [`minimum`, 2·`minimum`), `rand` giving
    the fraction in [0, 1) (injectable, so tests pick the draw)."""
    return lambda: minimum * (1 + rand())


class InformerFactory:
    def __init__(
        self, client: AsyncRestClient, profile: Profile, *, clock: Clock, resync: ResyncPeriod = no_resync
    ) -> None:
        self.client = client
        self.profile = profile
        self.clock = clock
        self.resync_period = resync()
        self.metadata_resync_period = resync()
        self.informers: dict[InformerKey, Informer] = {}
        self.metadata_informers: dict[InformerKey, Informer] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def informer(self, group: str, version: str, resource: str) -> Informer:
        """The shared informer of an upstream-named group's resource in every namespace."""
        key = (group, version, resource)
        if key not in self.informers:
            path = resource_path(self.profile.group(group), version, resource)
            self.informers[key] = self._informer(RestListerWatcher(self.client, path), self.resync_period)
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
            self.metadata_informers[key] = self._informer(source, self.metadata_resync_period)
        return self.metadata_informers[key]

    def _informer(self, source: RestListerWatcher, resync_period: float) -> Informer:
        return Informer(source, clock=self.clock, resync_period=resync_period, transform=trim_for_cache)

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


class ControllerInformers:
    """One controller's view of the shared factory, noting the informers it asks for, so the manager
    starts it once those have synced (upstream's `WaitForNamedCacheSync` in each controller's `Run`)
    rather than once every informer of the daemon has: one that never lists (a group the API server
    does not serve) holds back only the controllers that read it."""

    def __init__(self, factory: InformerFactory) -> None:
        self.factory = factory
        self.used: list[Informer] = []

    def informer(self, group: str, version: str, resource: str) -> Informer:
        informer = self.factory.informer(group, version, resource)
        self.used.append(informer)
        return informer

    def metadata_informer(self, group: str, version: str, resource: str) -> Informer:
        return self.factory.metadata_informer(group, version, resource)

    def start(self) -> None:
        self.factory.start()

    async def wait_for_sync(self) -> None:
        await asyncio.gather(*(informer.synced.wait() for informer in self.used))


@dataclass
class ControllerContext:
    client: AsyncRestClient
    profile: Profile
    informers: InformerFactory | ControllerInformers
    clock: Clock = field(default_factory=RealClock)
    root_ca: bytes = b""

    def recorder(self, component: str) -> EventRecorder:
        """An event recorder reporting as `component` (upstream's per-controller event source)."""
        return EventRecorder(self.client, component, clock=self.clock)
