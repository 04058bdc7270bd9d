"""The loop that keeps ValidatingAdmissionPolicy `status` current: for every policy whose
`status.observedGeneration` is behind its generation, write the type-checking warnings and the
generation they were computed for. It follows the policies' watch cache and writes through the
status subresource, so it is idempotent and catches up after a restart."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from svc.apiserver.admission.plugins.policy.build import ADMISSION_GROUP
from svc.apiserver.admission.plugins.policy.source import Collection
from svc.apiserver.admission.plugins.policy.type_checking import expression_warnings
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
Sleep = Callable[[float], Awaitable[None]]
INTERVAL = 0.2
_STATUS = WriteOptions(subresource="status")


def desired_status(policy: dict[str, Any], server: Server) -> dict[str, Any]:
    warnings = expression_warnings(policy.get("spec") or {}, server.resources)
    return {
        **(policy.get("status") or {}),
        "observedGeneration": policy["metadata"].get("generation", 0),
        "typeChecking": {"expressionWarnings": warnings} if warnings else {},
    }


async def sync_once(server: Server, policies: Collection, since: int) -> int:
    """One pass over the policies if they changed since revision `since`; returns the revision seen."""
    if not policies.resource_present():
        return since
    read = await policies.read(since)
    if read is None:
        return since
    revision, items = read
    store = policies.store()
    assert store is not None
    for policy in items:
        meta = policy["metadata"]
        if (policy.get("status") or {}).get("observedGeneration") != meta.get("generation"):
            await _write_status(server, store, meta["name"])
    return revision


async def _write_status(server: Server, store: GenericStore, name: str) -> None:
    async def update(current: dict[str, Any] | None) -> dict[str, Any]:
        if current is None:
            raise status.not_found(store.resource.group_resource, name)
        current["status"] = desired_status(current, server)
        return current

    user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
    try:
        await store.update("", name, update, admission=NoAdmission(), user=user, options=_STATUS)
    except status.StatusError as error:
        if error.code not in (404, 409):
            log.warning("typeChecking status of %s: %s", name, error)


async def status_loop(server: Server, *, sleep: Sleep = asyncio.sleep) -> None:
    policies = Collection(server.stores, server.profile.group(ADMISSION_GROUP), "validatingadmissionpolicies")
    seen = -1
    while True:
        seen = await sync_once(server, policies, seen)
        await sleep(INTERVAL)
