"""Status fields written with their zero value, as upstream's Go types write them.

Upstream's status structs have fields without `omitempty` (a ReplicaSet's `replicas`, a DaemonSet's
four counters, a Service's `loadBalancer`): Go writes them even when they hold zero, and strict
clients (the official Python client) refuse an object without them. `zero_values.json`, generated
by `tools/gen_zero_values.py` from the upstream OpenAPI document (its docstring gives the rule),
holds per kind definition a plan of what to fill in a status. Each plan is compiled once into nested
closures, so filling costs one walk over the parts of the status that can need it.

Only the status is filled: required fields of a spec are input, and a missing one is the client's
error for validation to report, not a zero to invent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources as package_files
from typing import Any

import orjson

Obj = dict[str, Any]
Filler = Callable[[Obj], None]


def _compile(plan: dict[str, dict]) -> Filler:
    """One closure filling an object (present, a dict) by its plan."""
    zeros = tuple(plan.get("zero", {}).items())
    created = tuple((key, _compile(sub)) for key, sub in plan.get("create", {}).items())
    structs = tuple((key, _compile(sub)) for key, sub in plan.get("struct", {}).items())
    items = tuple((key, _compile(sub)) for key, sub in plan.get("items", {}).items())
    values = tuple((key, _compile(sub)) for key, sub in plan.get("values", {}).items())

    def fill(obj: Obj) -> None:
        for key, zero in zeros:
            if obj.get(key) is None:
                obj[key] = zero
        for key, sub in created:
            child = obj.get(key)
            if child is None:
                child = obj[key] = {}
            if type(child) is dict:
                sub(child)
        for key, sub in structs:
            child = obj.get(key)
            if type(child) is dict:
                sub(child)
        for key, sub in items:
            children = obj.get(key)
            if type(children) is list:
                for child in children:
                    if type(child) is dict:
                        sub(child)
        for key, sub in values:
            children = obj.get(key)
            if type(children) is dict:
                for child in children.values():
                    if type(child) is dict:
                        sub(child)

    return fill


@functools.cache
def _plans() -> dict[str, dict]:
    return orjson.loads((package_files.files("svc.api") / "zero_values.json").read_bytes())


@functools.cache
def status_filler(definition: str) -> Filler | None:
    """The compiled filler of a kind's status (by its OpenAPI definition name); None: nothing to fill."""
    plan = _plans().get(definition)
    return _compile(plan) if plan else None


def fill_status(definition: str, obj: Obj) -> None:
    """Write the zero values Go would write into the object's status, when it has one."""
    filler = status_filler(definition)
    status = obj.get("status")
    if filler is not None and type(status) is dict:
        filler(status)
