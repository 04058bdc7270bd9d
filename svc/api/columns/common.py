"""Columns and lookups shared by many kinds: NAME, AGE, the pod template's containers and images."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.api.columns import descriptions, timing
from svc.wire.views import Column, Obj

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


def name_column(priority: int = 0) -> Column:
    return Column("Name", "string", lambda obj: text(obj, "metadata", "name"), "name", descriptions.NAME, priority)


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
