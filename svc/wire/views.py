"""Alternative views of objects: metadata-only (`PartialObjectMetadata`) and server-side `Table`.

A Table row carries cells computed by the type's column set, the row conditions of kinds that have
them and, per `includeObject`, nothing, the metadata-only object, or the full object. Types without a
column set of their own get upstream's default table: `Name` and `Created At`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from svc.machinery import status

Obj = dict[str, Any]

_NAME_DESCRIPTION = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources "
    "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
    "intended for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_CREATED_DESCRIPTION = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this "
    "value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null "
    "for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)


RowConditions = Callable[[Obj], list[Obj]]
"""A kind's row conditions (upstream sets `Completed` on finished pods, which clients may hide)."""


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    cell: Callable[[Obj], Any]
    """The cell's value from the object, or with `via` from what `via` made of it."""
    format: str = ""
    description: str = ""
    priority: int = 0
    via: Callable[[Obj], Any] | None = None
    """A reading of the object that several columns share (a pod's summary), made once per row."""

    def definition(self) -> Obj:
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


DEFAULT_COLUMNS = (
    Column("Name", "string", lambda obj: obj["metadata"].get("name", ""), "name", _NAME_DESCRIPTION),
    Column("Created At", "date", lambda obj: obj["metadata"].get("creationTimestamp"), "", _CREATED_DESCRIPTION),
)

INCLUDE_OBJECT = ("None", "Metadata", "Object")


def cells(obj: Obj, columns: Sequence[Column]) -> list[Any]:
    """One row's cells; each `via` reading is made once for all the columns that share it."""
    readings: dict[Callable[[Obj], Any], Any] = {}
    found = []
    for column in columns:
        if column.via is None:
            found.append(column.cell(obj))
            continue
        if column.via not in readings:
            readings[column.via] = column.via(obj)
        found.append(column.cell(readings[column.via]))
    return found


def partial(obj: Obj, api_version: str) -> Obj:
    return {"kind": "PartialObjectMetadata", "apiVersion": api_version, "metadata": obj.get("metadata", {})}


def partial_list(listed: Obj, api_version: str) -> Obj:
    """Upstream appends each item to a nil slice without `omitempty`: an empty list's `items` is null."""
    return {
        "kind": "PartialObjectMetadataList",
        "apiVersion": api_version,
        "metadata": listed.get("metadata", {}),
        "items": [partial(item, api_version) for item in listed.get("items", [])] or None,
    }


def table(
    objects: Iterable[Obj],
    columns: Sequence[Column],
    *,
    api_version: str,
    include_object: str,
    metadata: Obj,
    conditions: RowConditions | None = None,
) -> Obj:
    """The Table of `objects` (read once: a list's items may be decoded as this loop reaches them);
    `metadata` is the list's, or for one object its resourceVersion."""
    rows = []
    for obj in objects:
        row: Obj = {"cells": cells(obj, columns)}
        if conditions is not None and (found := conditions(obj)):
            row["conditions"] = found
        if include_object == "Object":
            row["object"] = obj
        elif include_object == "Metadata":
            row["object"] = partial(obj, api_version)
        else:  # a RawExtension is a struct, which `omitempty` never leaves out: empty, it is null
            row["object"] = None
        rows.append(row)
    result: Obj = {
        "kind": "Table",
        "apiVersion": api_version,
        "metadata": metadata,
        "columnDefinitions": [column.definition() for column in columns],
        # Upstream's printers make their rows (`[]` when empty); its default table appends them to nil.
        "rows": rows if rows or columns is not DEFAULT_COLUMNS else None,
    }
    return result


def check_include_object(value: str) -> str:
    if value and value not in INCLUDE_OBJECT:
        raise status.bad_request(
            f'includeObject: Unsupported value: "{value}": supported values: "None", "Metadata", "Object"'
        )
    return value or "Metadata"
