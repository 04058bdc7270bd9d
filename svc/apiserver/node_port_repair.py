"""The node port repair loop of the API server (upstream's portallocator `Repair`).

Every interval the node-port allocation (one RangeAllocation value) is rebuilt from the Services and
stored in place of the old one. A Service's port missing from it is put back (`PortNotAllocated`); a
port two Services use (`PortAlreadyAllocated`) or one outside `--service-node-port-range`
(`PortOutOfRange`) gets an Event on the Service and nothing else. A port held with no Service using
it may be one allocated for a Service not stored yet, so it is kept for three passes before it is
given back (upstream's leak counter).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from svc.apiserver.repair_events import RepairEvents
from svc.client.workers import every
from svc.machinery import wallclock
from svc.registry.options import ListOptions

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
Obj = dict[str, Any]
NAME = "portallocator-repair-controller"
REPAIRS_BEFORE_LEAK_CLEANUP = 3
_ACTION = "PortAllocation"


def service_node_ports(service: Obj) -> list[int]:
    """Upstream's `collectServiceNodePorts`: a node port listed again with the same protocol counts
    twice (a duplicate to report), with another protocol once; the health-check port counts unless
    a non-TCP port already uses it."""
    spec = service.get("spec") or {}
    ports: list[int] = []
    protocols: dict[int, set[str]] = {}
    for entry in spec.get("ports") or []:
        port = entry.get("nodePort")
        if not isinstance(port, int) or not port:
            continue
        protocol = entry.get("protocol", "TCP")
        seen = protocols.setdefault(port, set())
        if not seen or protocol in seen:
            ports.append(port)
        seen.add(protocol)
    health = spec.get("healthCheckNodePort")
    if isinstance(health, int) and health and (health not in protocols or "TCP" in protocols[health]):
        ports.append(health)
    return ports


class NodePortRepair:
    def __init__(self, server: Server, *, interval: float) -> None:
        self.interval = interval
        assert server.service_allocation is not None
        self.node_ports = server.service_allocation.node_ports
        self.services = server.store_for("", "services")
        self.events = RepairEvents(server, NAME)
        self.leaks: dict[int, int] = {}  # port -> passes left before a held, unused port is given back
        self.first_pass_done = False

    async def run(self) -> None:
        await every(wallclock.ServerClock(), self.interval, self.run_once)

    async def run_once(self) -> None:
        services = (await self.services.list("", ListOptions()))["items"]
        findings: list[tuple[Obj, str, str]] = []
        leaks: dict[int, int] = {}

        def rebuild(stored: set[int]) -> set[int]:
            findings.clear()
            leaks.clear()
            leaks.update(self.leaks)
            rebuilt = self._from_services(services, stored, findings, leaks)
            for port in sorted(stored - rebuilt):
                self._hold_leaked(port, rebuilt, leaks)
            return rebuilt

        await self.node_ports.replace(rebuild)
        self.leaks = leaks
        for service, reason, note in findings:
            await self.events.warning(service, "Service", "v1", _ACTION, reason, note)
        self.first_pass_done = True

    def _from_services(
        self, services: list[Obj], stored: set[int], findings: list[tuple[Obj, str, str]], leaks: dict[int, int]
    ) -> set[int]:
        rebuilt: set[int] = set()
        in_range = self.node_ports.ports
        for service in services:
            for port in service_node_ports(service):
                if port not in in_range:
                    span = self.node_ports.range_text
                    note = f"Port {port} is not within the port range {span}; please recreate service"
                    findings.append((service, "PortOutOfRange", note))
                elif port in rebuilt:
                    note = f"Port {port} was assigned to multiple services; please recreate service"
                    findings.append((service, "PortAlreadyAllocated", note))
                else:
                    rebuilt.add(port)
                    if port not in stored:
                        findings.append((service, "PortNotAllocated", f"Port {port} is not allocated; repairing"))
                    leaks.pop(port, None)
        return rebuilt

    def _hold_leaked(self, port: int, rebuilt: set[int], leaks: dict[int, int]) -> None:
        left = leaks.get(port)
        if left is None:
            log.info("the node port %d may have leaked: flagging for later clean up", port)
            left = REPAIRS_BEFORE_LEAK_CLEANUP - 1
        elif left <= 0:
            log.info("the node port %d appears to have leaked: cleaning up", port)
            return
        leaks[port] = left - 1
        rebuilt.add(port)
