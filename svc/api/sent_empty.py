"""The empty lists and maps an update sent in fields Go writes even when nil, kept for admission webhooks.

An update's checks see an empty value as absent (omit_empty.py: upstream compares with
`Semantic.DeepEqual`), so the store prunes the request before them, and a list without `omitempty` sent
`[]` (a Role's `rules`, a projected volume's `sources`) becomes null like the stored one. Upstream's
validating webhooks still get the decoded Go object, where that list is an empty slice, written `[]`.
`finder` notes where the request holds such empty values before the prune; `Emptied.put_back` puts
them back while a webhook's copy of the object is taken. Only the places still null then are touched,
so what the checks or a strategy changed stays as they left it.

A kind's finder walks only the fields that can lead to such a list or map, so most objects (a
ConfigMap's) are never walked.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from svc.wire.protobuf.schema import FieldSpec, schema

Obj = dict[str, Any]
Place = tuple[Obj, str, Any]
Walk = Callable[[Obj, list[Place]], None]


@dataclass(frozen=True)
class Emptied:
    """The places (object, key, empty value) where a request held an empty list or map Go writes even
    when nil."""

    places: tuple[Place, ...] = ()

    @contextmanager
    def put_back(self) -> Iterator[None]:
        """Puts each value back where it is null now, and nulls it again on leaving."""
        put = [(obj, key, value) for obj, key, value in self.places if key in obj and obj[key] is None]
        for obj, key, value in put:
            obj[key] = value
        try:
            yield
        finally:
            for obj, key, _ in put:
                obj[key] = None


NOTHING = Emptied()


@dataclass
class _Plan:
    keys: list[str] = field(default_factory=list)  # the message's own list and map fields written as null
    objects: dict[str, Walk] = field(default_factory=dict)  # message fields
    lists: dict[str, Walk] = field(default_factory=dict)  # repeated message fields
    maps: dict[str, Walk] = field(default_factory=dict)  # map-of-message fields


_walks: dict[str, Walk] = {}


@functools.cache
def finder(group: str, version: str, kind: str) -> Callable[[Obj], Emptied] | None:
    """What finds the empty values to keep in a kind's objects (by its upstream group, "" for core);
    None: the kind has no such field."""
    message = schema().message_for(f"{group}/{version}" if group else version, kind)
    if message is None or message not in _leading():
        return None
    walk = _walk(message)

    def find(obj: Obj) -> Emptied:
        places: list[Place] = []
        walk(obj, places)
        return Emptied(tuple(places)) if places else NOTHING

    return find


@functools.cache
def _leading() -> frozenset[str]:
    """The messages holding, themselves or through their fields, a list or map written as null."""
    messages = schema().messages
    found = {name for name, specs in messages.items() if any(spec.null_when_empty for spec in specs)}
    grown = True
    while grown:
        before = len(found)
        found.update(name for name, specs in messages.items() if any(spec.type in found for spec in specs))
        grown = len(found) > before
    return frozenset(found)


def _walk(message: str) -> Walk:
    found = _walks.get(message)
    if found is not None:
        return found
    plan = _Plan()
    keys, objects, lists, maps = plan.keys, plan.objects, plan.lists, plan.maps

    def walk(obj: Obj, places: list[Place]) -> None:
        for key in keys:
            value = obj.get(key)
            if value == [] or value == {}:
                places.append((obj, key, value))
        for key, sub in objects.items():
            value = obj.get(key)
            if type(value) is dict:
                sub(value, places)
        for key, sub in lists.items():
            value = obj.get(key)
            if type(value) is list:
                for item in value:
                    if type(item) is dict:
                        sub(item, places)
        for key, sub in maps.items():
            value = obj.get(key)
            if type(value) is dict:
                for item in value.values():
                    if type(item) is dict:
                        sub(item, places)

    _walks[message] = walk  # before the plan: messages may refer to themselves
    _build(message, plan)
    return walk


def _build(message: str, plan: _Plan) -> None:
    for spec in schema().messages[message]:
        if spec.inline:
            _build(spec.type, plan)
        else:
            _add(spec, plan)


def _add(spec: FieldSpec, plan: _Plan) -> None:
    if spec.null_when_empty:
        plan.keys.append(spec.json_name)
    if spec.type not in _leading():
        return
    into = {"repeated": plan.lists, "map": plan.maps}.get(spec.label, plan.objects)
    into[spec.json_name] = _walk(spec.type)
