"""Kinds whose status is optional (a pointer in upstream's Go type): created without one, and kept
without one by updates of the main resource, so "no status yet" stays visible to the controller that
answers them (a ResourcePoolStatusRequest is answered once, when it has no status)."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy

Obj = dict[str, Any]


def _create(obj: Obj) -> None:
    obj.pop("status", None)


def _update(new: Obj, old: Obj) -> None:
    if "status" not in old:
        new.pop("status", None)


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, prepare_for_create=_create, prepare_for_update=_update)
