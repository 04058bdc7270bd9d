"""The apiextensions concern as the server wires it: one object to start, stop and ask for columns."""

from __future__ import annotations

from typing import Any

from svc.api.resources import Resource
from svc.apiserver.apiextensions.controller import CrdController
from svc.apiserver.apiextensions.serving import ServedCustomResources
from svc.wire.views import Column


class ApiExtensions:
    def __init__(self, server: Any) -> None:
        self.served = ServedCustomResources(server)
        self.controller = CrdController(server, self.served)

    def columns_for(self, resource: Resource) -> tuple[Column, ...] | None:
        return self.served.columns.get((resource.group, resource.version, resource.name))

    async def start(self) -> None:
        await self.controller.start()

    async def stop(self) -> None:
        await self.controller.stop()


def build_apiextensions(server: Any) -> ApiExtensions:
    return ApiExtensions(server)
