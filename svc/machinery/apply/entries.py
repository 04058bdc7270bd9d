"""The `metadata.managedFields` list: reading it into per-manager field sets and writing it back.

A manager is identified by its name, operation, subresource and, for `Update` only, the API version:
one applier keeps one entry whatever version it applies with, while an updater gets one entry per
version it wrote. Entries are written in upstream's order (operation, then time to the second, then
manager, API version, subresource) so that a write which changes nothing writes identical bytes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from svc.machinery import gotext
from svc.machinery.apply.fieldpath import FieldPathError, FieldSet

APPLY = "Apply"
UPDATE = "Update"
ANCIENT_CHANGES = "ancient-changes"
MAX_UPDATE_MANAGERS = 10


class ManagedFieldsError(ValueError):
    """A managedFields list that cannot be read."""


class ManagerKey(NamedTuple):
    """Who owns a set of fields; `api_version` is empty for appliers."""

    manager: str
    operation: str
    api_version: str = ""
    subresource: str = ""

    def identifier(self) -> str:
        """Upstream's manager identifier (the entry's JSON without fields and time); it orders managers."""
        parts = [("manager", self.manager), ("operation", self.operation)]
        parts += [("apiVersion", self.api_version), ("subresource", self.subresource)]
        return "{" + ",".join(f'"{name}":{gotext.json_string(text)}' for name, text in parts if text) + "}"

    def describe(self) -> str:
        """How conflict messages name the manager: `"kubectl" using apps/v1` for an updater."""
        text = gotext.quote(self.manager)
        if self.subresource:
            text += f" with subresource {gotext.quote(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {self.api_version}"
        return text


@dataclass(frozen=True)
class Owned:
    fields: FieldSet
    api_version: str
    applied: bool


@dataclass
class Managed:
    """Field sets by manager, with the time each manager last changed the object (if known)."""

    sets: dict[ManagerKey, Owned] = field(default_factory=dict)
    times: dict[ManagerKey, str] = field(default_factory=dict)

    def set(self, key: ManagerKey, owned: Owned) -> None:
        """Record `owned`, or forget the manager when it owns nothing any more."""
        if owned.fields:
            self.sets[key] = owned
        else:
            self.sets.pop(key, None)


def decode(entries: Any) -> Managed:
    """Read a managedFields list; raise ManagedFieldsError with upstream's reason when it is invalid."""
    managed = Managed()
    if entries is None:
        return managed
    if not isinstance(entries, list):
        raise ManagedFieldsError("managedFields must be a list")
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ManagedFieldsError(f"managed fields entry {position} must be an object")
        operation = entry.get("operation")
        if operation not in (APPLY, UPDATE):
            raise ManagedFieldsError("operation must be `Apply` or `Update`")
        api_version = _text(entry, "apiVersion", position)
        if not api_version:
            raise ManagedFieldsError("apiVersion must not be empty")
        fields_type = _text(entry, "fieldsType", position)
        if not fields_type:
            raise ManagedFieldsError(f"missing fieldsType in managed fields entry {position}")
        if fields_type != "FieldsV1":
            quoted = gotext.quote(fields_type)
            raise ManagedFieldsError(f"invalid fieldsType {quoted} in managed fields entry {position}")
        key = ManagerKey(
            _text(entry, "manager", position),
            operation,
            api_version if operation == UPDATE else "",
            _text(entry, "subresource", position),
        )
        try:
            fields = FieldSet.from_fields_v1(entry.get("fieldsV1", {}))
        except FieldPathError as error:
            raise ManagedFieldsError(
                f"error decoding versioned set from entry {position}: error decoding set: {error}"
            ) from None
        managed.sets[key] = Owned(fields, api_version, operation == APPLY)
        time = entry.get("time")
        if time is not None:
            if seconds(time) is None:
                raise ManagedFieldsError(f"invalid time {time!r} in managed fields entry {position}")
            managed.times[key] = time
        else:
            managed.times.pop(key, None)
    return managed


def validate_managed_fields(entries: Any) -> None:
    """Raise ManagedFieldsError unless `entries` can be read (upstream checks this after mutating admission)."""
    decode(entries)


def encode(managed: Managed) -> list[dict[str, Any]]:
    """Write the managedFields list, sorted as upstream sorts it."""
    entries = []
    for key, owned in managed.sets.items():
        entry: dict[str, Any] = {}
        if key.manager:
            entry["manager"] = key.manager
        entry["operation"] = APPLY if owned.applied else UPDATE
        if owned.api_version:
            entry["apiVersion"] = owned.api_version
        if key in managed.times:
            entry["time"] = managed.times[key]
        entry["fieldsType"] = "FieldsV1"
        entry["fieldsV1"] = owned.fields.to_fields_v1()
        if key.subresource:
            entry["subresource"] = key.subresource
        entries.append(entry)
    if len(entries) < 2:  # a create's single entry: no order to work out
        return entries
    entries.sort(
        key=lambda e: (
            e["operation"],
            seconds(e.get("time")) or 0,
            e.get("manager", ""),
            e.get("apiVersion", ""),
            e.get("subresource", ""),
        )
    )
    return entries


def cap_update_managers(managed: Managed, limit: int = MAX_UPDATE_MANAGERS) -> None:
    """Fold the oldest updaters into one `ancient-changes` entry per version once there are too many."""
    updaters = [key for key, owned in managed.sets.items() if not owned.applied]
    if len(updaters) <= limit:
        return
    updaters.sort(key=lambda key: (_time_of(managed, key), key.identifier()))
    first_by_version: dict[str, ManagerKey] = {}
    remaining = len(updaters)
    for key in updaters:
        if remaining <= limit:
            break
        owned = managed.sets[key]
        bucket = ManagerKey(ANCIENT_CHANGES, UPDATE, owned.api_version)
        first = first_by_version.get(owned.api_version)
        if first is None:
            first_by_version[owned.api_version] = key
            continue
        if bucket not in managed.sets:
            managed.sets[bucket] = managed.sets.pop(first)
        managed.sets[bucket] = Owned(owned.fields | managed.sets[bucket].fields, owned.api_version, owned.applied)
        del managed.sets[key]
        remaining -= 1
        if key in managed.times:
            managed.times[bucket] = managed.times[key]
        else:
            managed.times.pop(bucket, None)


def _time_of(managed: Managed, key: ManagerKey) -> int:
    return seconds(managed.times.get(key)) or 0


def _text(entry: dict[str, Any], name: str, position: int) -> str:
    value = entry.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ManagedFieldsError(f"{name} of managed fields entry {position} must be a string")
    return value


def seconds(time: Any) -> int | None:
    """Seconds since the epoch of an RFC 3339 time (upstream orders entries by it); None if unreadable."""
    if not isinstance(time, str):
        return None
    return _seconds(time)


@functools.lru_cache(maxsize=256)
def _seconds(time: str) -> int | None:
    """Every write sorts its entries by their times, and the same few times come back write after write."""
    try:
        moment = datetime.fromisoformat(time)
    except ValueError:
        return None
    return int(moment.timestamp()) if moment.tzinfo is not None else None
