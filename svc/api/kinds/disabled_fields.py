"""Writes lose the fields of disabled features (`svc.api.gated_fields`): on create, update and every
subresource write of the kinds the table names, as upstream's `PrepareForCreate`/`PrepareForUpdate` do."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from svc.api.gated_fields import GATED_FIELDS, POD_SPEC, GatedField
from svc.api.strategy import Obj, Strategy
from svc.api.validation.engine import join, lookup
from svc.api.validation.gates import Gates


def _entries(identity: tuple[str, str], spec_path: str | None, gates: Gates) -> list[tuple[GatedField, str]]:
    """The kind's entries whose gate is off, each with where it starts in the object."""
    scope = f"{identity[0]}/{identity[1]}"
    found = []
    for entry in GATED_FIELDS:
        if all(gates.enabled(gate) for gate in entry.gates):
            continue
        if entry.scope == POD_SPEC and spec_path is not None:
            found.append((entry, join(spec_path, entry.at) if entry.at else spec_path))
        elif entry.scope == scope:
            found.append((entry, entry.at))
    return found


def with_disabled_fields_dropped(
    base: Strategy, identity: tuple[str, str], spec_path: str | None, gates: Gates
) -> Strategy:
    """`base` whose writes drop the fields of disabled features not used by the stored object."""
    entries = _entries(identity, spec_path, gates)
    if not entries:
        return base

    def drop(new: Obj, old: Obj | None) -> None:
        for entry, path in entries:
            target, stored = lookup(new, path), lookup(old, path)
            # A part the write takes over from the stored object as it is (a subresource write) stays
            # untouched: it is the stored object's own.
            if target is None or target is stored or (entry.present is not None and not entry.present(target)):
                continue
            if not entry.in_use(old if entry.whole else stored):
                entry.drop(target)

    prepare_for_create, prepare_for_update = base.prepare_for_create, base.prepare_for_update

    def create(obj: Obj) -> None:
        prepare_for_create(obj)
        drop(obj, None)

    def update(new: Obj, old: Obj) -> None:
        prepare_for_update(new, old)
        drop(new, old)

    def subresource(write: Callable[[Obj, Obj], Obj]) -> Callable[[Obj, Obj], Obj]:
        def written(new: Obj, old: Obj) -> Obj:
            result = write(new, old)
            drop(result, old)
            return result

        return written

    updates: dict[str, Any] = {name: subresource(write) for name, write in base.subresource_updates.items()}
    return dataclasses.replace(
        base, prepare_for_create=create, prepare_for_update=update, extra_subresource_updates=updates
    )
