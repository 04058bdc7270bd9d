"""ResourceQuota: a write that would take a namespace past a quota's hard limit is forbidden, and the
quota's `status.used` is charged at admission, so concurrent writers cannot overshoot between two
runs of the quota controller (which recalculates usage, and releases what deletes freed).

A quota takes part once the controller has filled in `status.hard` (as upstream). Its status is
written with the resourceVersion it was read at; on a conflict the quotas are read again and the
request re-checked. Writers in one namespace are serialised in this process, so the conflicts only
come from other API servers.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

from svc.api import quota_usage
from svc.apiserver.admission.errors import forbidden
from svc.apiserver.admission.quantities import resource_list
from svc.apiserver.admission.registry import PluginContext
from svc.machinery import status
from svc.machinery.quantity import Quantity
from svc.registry.admission import Attributes, NoAdmission, Operation, UserInfo
from svc.registry.options import ListOptions, WriteOptions

Obj = dict[str, Any]
Usage = dict[str, Quantity]

_ATTEMPTS = 10
# Compute resources each container must request once a quota limits them (upstream's
# backward-compatibility rule for cpu and memory).
_MUST_SPECIFY = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})
_STATUS = WriteOptions(subresource="status")


class _Conflict(Exception):
    pass


def _evaluates(attributes: Attributes) -> bool:
    """Whether quota looks at this request: any create of a namespaced resource, updates of services
    and claims (their usage can change), nothing on subresources."""
    if attributes.subresource or not attributes.namespace or not isinstance(attributes.object, dict):
        return False
    if attributes.operation is Operation.CREATE:
        return True
    resource = attributes.resource
    return (
        attributes.operation is Operation.UPDATE
        and resource.upstream_group == ""
        and resource.name in ("services", "persistentvolumeclaims")
    )


def _usage(attributes: Attributes, obj: Obj) -> Usage:
    return quota_usage.usage(attributes.resource.upstream_group, attributes.resource.name, obj)


def _pretty(values: Usage) -> str:
    return ",".join(f"{name}={values[name]}" for name in sorted(values))


class ResourceQuota:
    def __init__(self, context: PluginContext) -> None:
        self._context = context
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._user = UserInfo(context.profile.apiserver_name, groups=("system:masters",))

    async def validate(self, attributes: Attributes) -> None:
        if not _evaluates(attributes):
            return
        if not self._context.list("", "resourcequotas", attributes.namespace):
            return  # the common case, answered from the cache without a lock
        delta = self._delta(attributes)
        if not delta:
            return
        async with self._locks[attributes.namespace]:
            for _ in range(_ATTEMPTS):
                try:
                    await self._charge(attributes, delta, await self._quotas(attributes.namespace))
                    return
                except _Conflict:
                    continue
        raise status.StatusError(
            409, "Conflict", f"unable to update the status of the quotas of namespace {attributes.namespace}"
        )

    def _delta(self, attributes: Attributes) -> Usage:
        """What the request adds: the object's usage, less the old object's on an update."""
        new = _usage(attributes, attributes.object or {})
        if attributes.old_object is None:
            return {name: value for name, value in new.items() if value.value > 0}
        old = _usage(attributes, attributes.old_object)
        delta: Usage = {}
        for name, value in new.items():
            before = old.get(name)
            grown = value.value - (before.value if before is not None else 0)
            if grown > 0:
                delta[name] = Quantity(grown, value.format)
        return delta

    async def _quotas(self, namespace: str) -> list[Obj]:
        store = self._context.store("", "resourcequotas")
        assert store is not None
        return (await store.list(namespace, ListOptions())).get("items") or []

    async def _charge(self, attributes: Attributes, delta: Usage, quotas: list[Obj]) -> None:
        obj = attributes.object or {}
        charged: list[tuple[Obj, Usage]] = []
        for quota in quotas:
            if not quota_usage.matches_scopes(quota, attributes.resource.upstream_group, attributes.resource.name, obj):
                continue
            name = quota["metadata"]["name"]
            quota_status = quota.get("status") or {}
            hard = resource_list(quota_status.get("hard"))
            used = resource_list(quota_status.get("used"))
            restricted = sorted(r for r in hard if r in delta or (r in _MUST_SPECIFY and self._is_pod(attributes)))
            if not restricted:
                continue
            if self._is_pod(attributes):
                missing = _missing_requests(obj, set(restricted) & _MUST_SPECIFY)
                if missing:
                    raise forbidden(attributes, f"failed quota: {name}: must specify {missing}")
            unknown = [r for r in restricted if r not in used]
            if unknown:
                raise forbidden(attributes, f"status unknown for quota: {name}, resources: {','.join(unknown)}")
            requested = {r: delta[r] for r in restricted if r in delta}
            new_used = dict(used)
            for resource, amount in requested.items():
                before = used[resource]
                # as upstream's Quantity.Add: a zero takes the format of what is added to it
                form = before.format if before.value else amount.format
                new_used[resource] = Quantity(before.value + amount.value, form)
            exceeded = sorted(r for r in requested if new_used[r] > hard[r])
            if exceeded:
                asked, had, limit = ({r: values[r] for r in exceeded} for values in (requested, used, hard))
                why = f"exceeded quota: {name}, requested: {_pretty(asked)}, used: {_pretty(had)}, "
                why += f"limited: {_pretty(limit)}"
                raise forbidden(attributes, why)
            if requested:
                charged.append((quota, new_used))
        if attributes.dry_run:
            return
        for quota, new_used in charged:
            await self._write(quota, new_used)

    @staticmethod
    def _is_pod(attributes: Attributes) -> bool:
        return attributes.resource.upstream_group == "" and attributes.resource.name == "pods"

    async def _write(self, quota: Obj, used: Usage) -> None:
        store = self._context.store("", "resourcequotas")
        assert store is not None
        metadata = quota["metadata"]
        updated = {**quota, "status": {**(quota.get("status") or {}), "used": {r: str(v) for r, v in used.items()}}}

        async def replace(_current: Obj | None) -> Obj:
            return updated

        try:
            await store.update(
                metadata.get("namespace", ""),
                metadata["name"],
                replace,
                admission=NoAdmission(),
                user=self._user,
                options=_STATUS,
                allow_create=False,
            )
        except status.StatusError as error:
            if error.code == 409:
                raise _Conflict from None
            raise


def _missing_requests(pod: Obj, required: set[str]) -> str:
    """Upstream's "must specify" text: each required resource and the containers lacking it."""
    if not required:
        return ""
    missing: dict[str, list[str]] = {}
    spec = pod.get("spec") or {}
    for field in ("containers", "initContainers"):
        for container in spec.get(field) or []:
            resources = container.get("resources") or {}
            has: set[str] = set()
            for compute in ("cpu", "memory"):
                if compute in (resources.get("requests") or {}):
                    has.update({compute, "requests." + compute})
                if compute in (resources.get("limits") or {}):
                    has.add("limits." + compute)
            for resource in required - has:
                missing.setdefault(resource, []).append(container.get("name", ""))
    return "; ".join(f"{resource} for: {','.join(sorted(set(names)))}" for resource, names in sorted(missing.items()))


def build(context: PluginContext) -> ResourceQuota:
    return ResourceQuota(context)
