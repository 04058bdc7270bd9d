"""The date since which this cluster tracks the use of legacy service-account tokens.

Upstream's kube-apiserver keeps the ConfigMap `<apiserver>-legacy-service-account-token-tracking` in
the system namespace, whose `since` is the day tracking began (the API server labels each legacy
token Secret with the day it was last used, see authn/legacy_tokens.py). The controller manager's
legacy-token cleaner deletes nothing until tracking has run for its whole clean-up period, so the
date must survive restarts: it is written once, put back if the ConfigMap is deleted, and replaced
by today's date only when it does not parse.
"""

from __future__ import annotations

import datetime
import logging
from typing import TYPE_CHECKING, Any

from svc.machinery import status, wallclock
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import WriteOptions

if TYPE_CHECKING:
    from svc.apiserver.server import Server

log = logging.getLogger(__name__)
INTERVAL = 60.0
Obj = dict[str, Any]


def config_map_name(server: Server) -> str:
    return f"{server.profile.apiserver_name}-legacy-service-account-token-tracking"


def _valid(text: Any) -> bool:
    try:
        datetime.datetime.strptime(str(text), "%Y-%m-%d")
    except ValueError:
        return False
    return True


async def ensure(server: Server) -> None:
    store = server.store_for("", "configmaps")
    namespace, name = server.profile.system_namespace, config_map_name(server)
    today = wallclock.now_datetime().strftime("%Y-%m-%d")
    user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
    try:
        current = await store.get(namespace, name)
    except status.StatusError as error:
        if error.code != 404:
            raise
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace},
            "data": {"since": today},
        }
        await store.create(namespace, body, admission=NoAdmission(), user=user, options=WriteOptions())
        return
    if _valid((current.get("data") or {}).get("since")):
        return

    async def dated(existing: Obj | None) -> Obj:
        if existing is None:
            raise status.not_found_path()
        return {**existing, "data": {**(existing.get("data") or {}), "since": today}}

    await store.update(namespace, name, dated, admission=NoAdmission(), user=user, options=WriteOptions())


async def tracking_loop(server: Server, *, interval: float = INTERVAL) -> None:
    while True:
        await wallclock.sleep(interval)
        try:
            await ensure(server)
        except (status.StatusError, OSError) as error:
            log.warning("keeping the legacy token tracking date: %s", error)
