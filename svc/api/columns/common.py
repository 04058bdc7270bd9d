"""Columns and lookups shared by many kinds: NAME, AGE, the pod template's containers and images, and the
way upstream's printers write absent values (`<none>`, `<unset>`), quantities, booleans and long lists."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.api.columns import descriptions, timing
from svc.wire.views import Column, Obj

UNSET = "<unset>"
NONE = "<none>"
MAX_LISTED = 3

CONTAINERS_DESCRIPTION = "Names of each container in the template."
IMAGES_DESCRIPTION = "Images referenced by each container in the template."


def field(obj: Any, *path: str) -> Any:
    """The value at a path of object keys, or None where any step is missing or not an object."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def text(obj: Any, *path: str) -> str:
    value = field(obj, *path)
    return value if isinstance(value, str) else ""


def number(obj: Any, *path: str) -> int:
    value = field(obj, *path)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def items(obj: Any, *path: str) -> list[Any]:
    value = field(obj, *path)
    return value if isinstance(value, list) else []


def mapping(obj: Any, *path: str) -> dict[str, Any]:
    value = field(obj, *path)
    return value if isinstance(value, dict) else {}


def name_column(priority: int = 0, cell: Callable[[Obj], str] | None = None) -> Column:
    """The `Name` column; `cell` for kinds that print more than the name (" (default)" classes)."""
    cell = cell or (lambda obj: text(obj, "metadata", "name"))
    return Column("Name", "string", cell, "name", descriptions.NAME, priority)


def age_column() -> Column:
    return Column("Age", "string", timing.age, description=descriptions.CREATION_TIMESTAMP)


def container_columns(*template_path: str, priority: int = 1) -> tuple[Column, Column]:
    """CONTAINERS and IMAGES of the pod template found at `template_path` (names and images joined by `,`)."""

    def joined(key: str) -> Callable[[Obj], str]:
        def cell(obj: Obj) -> str:
            containers = items(obj, *template_path, "spec", "containers")
            return ",".join(text(container, key) for container in containers)

        return cell

    return (
        Column("Containers", "string", joined("name"), description=CONTAINERS_DESCRIPTION, priority=priority),
        Column("Images", "string", joined("image"), description=IMAGES_DESCRIPTION, priority=priority),
    )


def quantity(value: Any) -> str:
    """A stored quantity as written; a missing one prints as Go's zero quantity, "0"."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return "0"


def optional_text(*path: str, absent: str = UNSET) -> Callable[[Obj], str]:
    """A string field that upstream shows as `absent` when the field is not set (a nil pointer in Go)."""
    return lambda obj: text(obj, *path) if field(obj, *path) is not None else absent


def flag(obj: Any, *path: str, default: bool) -> bool:
    """An optional boolean, with the default upstream's printer assumes when it is unset."""
    value = field(obj, *path)
    return value if isinstance(value, bool) else default


def count(*path: str) -> Callable[[Obj], int]:
    """The number of entries of a list field (0 when absent)."""
    return lambda obj: len(items(obj, *path))


def int_or_string(value: Any, absent: str) -> str:
    """An `IntOrString` as Go's `String()` writes it (42 or "50%"), `absent` when unset."""
    if isinstance(value, bool) or value is None:
        return absent
    return str(value)


def listed(values: list[str], *, limit: int = MAX_LISTED, separator: str = ",", empty: str = UNSET) -> str:
    """The first `limit` values, then "+ N more..." for the rest; `empty` when there are none."""
    if len(values) > limit:
        return f"{separator.join(values[:limit])} + {len(values) - limit} more..."
    return separator.join(values) or empty


def age_at(*path: str) -> Callable[[Obj], str]:
    return lambda obj: timing.since(field(obj, *path))
