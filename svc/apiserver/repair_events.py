"""Events the API server's repair loops write, as upstream's events.k8s.io/v1 recorder writes them.

Upstream's repair controllers record through `k8s.io/client-go/tools/events`: the Event is named
`<regarding name>.<nanoseconds in hex>`, lives in the regarding object's namespace (`default` for a
cluster-scoped one), carries `eventTime`, the controller as `reportingController`, `<controller>-<host>`
as `reportingInstance`, and an `action`. It is stored as the core/v1 Event both APIs show. Recording
never fails the loop: an Event that cannot be written is logged and dropped.
"""

from __future__ import annotations

import logging
import socket
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from svc.api.conversion.events import events_to_core
from svc.client.events import WARNING, reference
from svc.machinery import status, wallclock
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.storage import errors

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
Obj = dict[str, Any]


class RepairEvents:
    def __init__(self, server: Server, controller: str) -> None:
        self.controller = controller
        self.instance = f"{controller}-{socket.gethostname()}"
        self._events = server.store_for("", "events")
        self._user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))

    async def warning(self, obj: Obj, kind: str, api_version: str, action: str, reason: str, note: str) -> None:
        regarding = reference(obj, kind, api_version)
        namespace = regarding.get("namespace") or "default"
        moment = wallclock.now()
        stamp = datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{regarding.get('name', '')}.{int(moment * 1e9):x}", "namespace": namespace},
            "eventTime": stamp,
            "reportingController": self.controller,
            "reportingInstance": self.instance,
            "action": action,
            "reason": reason,
            "regarding": regarding,
            "note": note,
            "type": WARNING,
        }
        try:
            await self._events.create(
                namespace, events_to_core(event), admission=NoAdmission(), user=self._user, options=WriteOptions()
            )
        except (status.StatusError, errors.StorageError) as error:
            log.warning("%s: event %s on %s dropped: %s", self.controller, reason, regarding.get("name"), error)
