"""Create the bootstrap configuration and keep it (upstream's APF bootstrap ensurer).

At start and then every minute:
- a mandatory object (`exempt`, `catch-all`) is created when missing and its spec put back when it
  was changed, whatever its annotation says; of the `exempt` level only its `exempt` tuning
  (nominalConcurrencyShares, lendablePercent) is left as an operator set it;
- a suggested object is created when missing and its spec put back when it was changed, unless its
  `apf.kubernetes.io/autoupdate-spec` annotation says "false" (an object without a readable annotation
  is kept only while its generation is 1, i.e. no one has edited it);
- an object annotated for auto-update that is no longer part of the configuration is deleted.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

from svc.api.brand import Profile
from svc.apiserver.flowcontrol import bootstrap
from svc.machinery import status
from svc.registry.admission import NoAdmission, UserInfo
from svc.registry.options import DeleteOptions, ListOptions, WriteOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]
log = logging.getLogger(__name__)
INTERVAL = 60.0


def _auto_update(obj: Obj, profile: Profile) -> bool:
    metadata = obj.get("metadata") or {}
    value = (metadata.get("annotations") or {}).get(bootstrap.annotation(profile), "").lower()
    if value in ("true", "1", "t"):
        return True
    if value in ("false", "0", "f"):
        return False
    return metadata.get("generation") == 1


def _wanted_spec(current: Obj, expected: Obj) -> Obj:
    """The spec `current` should have; the exempt level keeps its operator-set tuning."""
    spec = copy.deepcopy(expected["spec"])
    if expected["kind"] == "PriorityLevelConfiguration" and expected["metadata"]["name"] == bootstrap.EXEMPT:
        tuning = (current.get("spec") or {}).get("exempt")
        if tuning is not None:
            spec["exempt"] = copy.deepcopy(tuning)
    return spec


async def ensure(store: GenericStore, expected: Obj, profile: Profile, user: UserInfo) -> None:
    name = expected["metadata"]["name"]
    mandatory = name in bootstrap.MANDATORY_NAMES
    key = bootstrap.annotation(profile)
    defaulted = copy.deepcopy(expected)
    store.strategy.default(defaulted)

    async def transform(current: Obj | None) -> Obj:
        if current is None:
            return copy.deepcopy(defaulted)
        if not mandatory and not _auto_update(current, profile):
            return current
        spec = _wanted_spec(current, defaulted)
        annotations = (current.get("metadata") or {}).get("annotations") or {}
        if current.get("spec") == spec and annotations.get(key) == "true":
            return current
        updated = copy.deepcopy(current)
        updated["spec"] = spec
        updated["metadata"]["annotations"] = {**annotations, key: "true"}
        return updated

    await store.update(
        "", name, transform, admission=NoAdmission(), user=user, options=WriteOptions(), allow_create=True
    )


async def _remove_retired(store: GenericStore, names: set[str], profile: Profile, user: UserInfo) -> None:
    key = bootstrap.annotation(profile)
    listed = await store.list("", ListOptions())
    for obj in listed["items"]:
        metadata = obj["metadata"]
        if metadata["name"] in names or (metadata.get("annotations") or {}).get(key) != "true":
            continue
        try:
            await store.delete("", metadata["name"], DeleteOptions(), admission=NoAdmission(), user=user)
        except status.StatusError as error:
            if error.code != 404:
                raise


async def ensure_all(levels: GenericStore, schemas: GenericStore, profile: Profile, user: UserInfo) -> None:
    """One pass over the whole configuration: levels before the schemas that name them (the objects of
    one kind concurrently, as each write on etcd waits for a commit)."""

    async def ensure_one(store: GenericStore, obj: Obj) -> None:
        try:
            await ensure(store, obj, profile, user)
        except status.StatusError as error:
            log.warning("could not ensure APF bootstrap %s %s: %s", obj["kind"], obj["metadata"]["name"], error.message)

    for store, objects in (
        (levels, bootstrap.priority_levels(profile)),
        (schemas, bootstrap.flow_schemas(profile)),
    ):
        await asyncio.gather(*(ensure_one(store, obj) for obj in objects))
        await _remove_retired(store, {obj["metadata"]["name"] for obj in objects}, profile, user)
