"""Policies and bindings followed live: read from the watch caches whenever they have moved on,
compiled once per policy generation, grouped by the policy each binding names.

Upstream follows them with informers and refreshes its compiled set every second; reading the
watch cache's revision on each request makes a change effective as soon as the cache has applied
it. Without a watch cache the objects are listed from storage at most once a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from svc.api.resources import version_priority
from svc.apiserver.admission.matching import MatchCriteria
from svc.registry.options import ListOptions
from svc.registry.store import GenericStore

Obj = dict[str, Any]
P = TypeVar("P")
_UNCACHED_REFRESH = 1.0


class Collection:
    """All objects of one resource, re-read only when they may have changed. The resource is read
    through whichever of its versions is served (all share one storage), found once storage is open."""

    def __init__(
        self,
        stores: Mapping[tuple[str, str, str], GenericStore],
        group: str,
        resource: str,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stores = stores
        self._group = group
        self._resource = resource
        self._clock = clock
        self._read_at = -_UNCACHED_REFRESH
        self._found: GenericStore | None = None
        self._stores_seen = -1

    def store(self) -> GenericStore | None:
        """The store of the resource at its most preferred served version (None before start); looked up
        again only when the number of stores changes (built-in stores are never replaced), as every
        admitted request asks several times."""
        if len(self._stores) != self._stores_seen:
            served = [
                (version, s) for (g, version, r), s in self._stores.items() if (g, r) == (self._group, self._resource)
            ]
            self._found = min(served, key=lambda found: version_priority(found[0]))[1] if served else None
            self._stores_seen = len(self._stores)
        return self._found

    def resource_present(self) -> bool:
        return self.store() is not None

    async def read(self, since: int) -> tuple[int, list[Obj]] | None:
        """(revision, objects) when newer than `since`, else None."""
        store = self.store()
        if store is None:
            return None
        cache = store.cache
        if cache is not None:
            if cache.revision == since:
                return None
            revision = cache.revision
            return revision, [store.present(obj.decode()) for obj in list(cache.state.values())]
        now = self._clock()
        if now - self._read_at < _UNCACHED_REFRESH:
            return None
        self._read_at = now
        listed = await store.list("", ListOptions())
        return int(listed["metadata"]["resourceVersion"]), list(listed.get("items") or [])


@dataclass(frozen=True)
class Binding:
    """A binding with its matchResources parsed once."""

    name: str
    spec: Obj
    criteria: MatchCriteria | None

    @classmethod
    def of(cls, obj: Obj) -> Binding:
        spec = obj.get("spec") or {}
        match = spec.get("matchResources")
        return cls(obj["metadata"]["name"], spec, MatchCriteria.from_match_resources(match) if match else None)


@dataclass(frozen=True)
class Bound(Generic[P]):
    policy: P
    bindings: list[Binding]


class PolicySource(Generic[P]):
    def __init__(self, policies: Collection, bindings: Collection, compile_policy: Callable[[Obj], P]) -> None:
        self._policies = policies
        self._bindings = bindings
        self._compile = compile_policy
        self._compiled: dict[tuple[str, str, int], P] = {}
        self._compiled_bindings: dict[tuple[str, str, int], Binding] = {}
        self._revisions = (-1, -1)
        self._policy_objects: list[Obj] = []
        self._binding_objects: list[Obj] = []
        self._current: list[Bound[P]] = []

    async def current(self) -> list[Bound[P]]:
        if not (self._policies.resource_present() and self._bindings.resource_present()):
            return []
        policies = await self._policies.read(self._revisions[0])
        bindings = await self._bindings.read(self._revisions[1])
        if policies is None and bindings is None:
            return self._current
        if policies is not None:
            self._policy_objects = policies[1]
        if bindings is not None:
            self._binding_objects = bindings[1]
        self._revisions = (
            policies[0] if policies is not None else self._revisions[0],
            bindings[0] if bindings is not None else self._revisions[1],
        )
        self._current = self._rebuild()
        return self._current

    def _rebuild(self) -> list[Bound[P]]:
        by_policy: dict[str, list[Binding]] = {}
        bindings: dict[tuple[str, str, int], Binding] = {}
        for obj in sorted(self._binding_objects, key=_name):
            key = _version(obj)
            bindings[key] = self._compiled_bindings.get(key) or Binding.of(obj)
            by_policy.setdefault(bindings[key].spec.get("policyName", ""), []).append(bindings[key])
        compiled: dict[tuple[str, str, int], P] = {}
        result = []
        for policy in sorted(self._policy_objects, key=_name):
            bound = by_policy.get(_name(policy))
            if not bound:
                continue
            key = _version(policy)
            found = self._compiled.get(key)
            compiled[key] = found if found is not None else self._compile(policy)
            result.append(Bound(compiled[key], bound))
        self._compiled, self._compiled_bindings = compiled, bindings
        return result


def _name(obj: Obj) -> str:
    return (obj.get("metadata") or {}).get("name", "")


def _version(obj: Obj) -> tuple[str, str, int]:
    """What identifies one generation of one object's spec."""
    meta = obj.get("metadata") or {}
    return (meta.get("name", ""), meta.get("uid", ""), int(meta.get("generation") or 0))
