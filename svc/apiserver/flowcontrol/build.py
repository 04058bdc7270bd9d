"""Request limiting as one server runs it: `build_flowcontrol(options, ...)` makes it, `start`
creates the bootstrap configuration and follows the stored objects, `stop` ends its loops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from prometheus_client import CollectorRegistry

from svc.api.brand import Profile
from svc.apiserver.authz.follow import Followers
from svc.apiserver.flowcontrol import bootstrap, ensurer
from svc.apiserver.flowcontrol.controller import Controller
from svc.apiserver.flowcontrol.max_inflight import MaxInFlight
from svc.apiserver.flowcontrol.metrics import FlowControlMetrics
from svc.apiserver.flowcontrol.options import FlowControlOptions
from svc.apiserver.flowcontrol.retry_after import RetryAfter
from svc.apiserver.flowcontrol.routes import Routes
from svc.machinery import status
from svc.registry.admission import UserInfo
from svc.registry.store import GenericStore

log = logging.getLogger(__name__)
StoreFor = Callable[[str, str], GenericStore]


class FlowControl:
    def __init__(self, options: FlowControlOptions, profile: Profile, registry: CollectorRegistry) -> None:
        self.options = options
        self.profile = profile
        self.metrics = FlowControlMetrics(registry)
        self.retry_after = RetryAfter()
        self.max_in_flight = MaxInFlight(options.max_requests_inflight, options.max_mutating_requests_inflight)
        self.schema_header = f"X-{profile.header_brand}-PF-FlowSchema-UID"
        self.level_header = f"X-{profile.header_brand}-PF-PriorityLevel-UID"
        self.routes = Routes(self.metrics, self.schema_header, self.level_header)
        mandatory = {
            "prioritylevelconfigurations": [
                obj
                for obj in bootstrap.priority_levels(profile)
                if obj["metadata"]["name"] in bootstrap.MANDATORY_NAMES
            ],
            "flowschemas": [
                obj for obj in bootstrap.flow_schemas(profile) if obj["metadata"]["name"] in bootstrap.MANDATORY_NAMES
            ],
        }
        self.controller = (
            Controller(options.server_limit, self.metrics, mandatory) if options.enable_priority_and_fairness else None
        )
        """None when priority and fairness is off (the plain in-flight limits apply)."""
        self.ensure_interval = ensurer.INTERVAL
        self._followers = Followers()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, store_for: StoreFor, user: UserInfo) -> None:
        if self.controller is None:
            return
        try:
            levels = store_for(bootstrap.GROUP, "prioritylevelconfigurations")
            schemas = store_for(bootstrap.GROUP, "flowschemas")
        except status.StatusError:
            log.warning("the flowcontrol API group is not served: only the mandatory configuration applies")
            self.controller.reset("flowschemas", [])
            return
        await ensurer.ensure_all(levels, schemas, self.profile, user)
        await self._followers.add(self.controller, levels, schemas)
        # the first conditions are written before the server is ready, not behind its first requests
        await self.controller.write_conditions(schemas, user)
        self._tasks = [
            asyncio.create_task(self._keep_bootstrap(levels, schemas, user), name="apf-bootstrap"),
            asyncio.create_task(self.controller.run_reallocation(), name="apf-reallocation"),
            asyncio.create_task(self.controller.run_status(schemas, user), name="apf-status"),
        ]

    async def _keep_bootstrap(self, levels: GenericStore, schemas: GenericStore, user: UserInfo) -> None:
        assert self.controller is not None
        changed = self.controller.mandatory_changed
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.ensure_interval):
                    await changed.wait()
            changed.clear()
            try:
                await ensurer.ensure_all(levels, schemas, self.profile, user)
            except Exception as error:  # storage trouble: the next round tries again
                log.warning("APF bootstrap ensurer failed, will retry: %s", error)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        await self._followers.stop()


def build_flowcontrol(options: FlowControlOptions, profile: Profile, registry: CollectorRegistry) -> FlowControl:
    return FlowControl(options, profile, registry)
