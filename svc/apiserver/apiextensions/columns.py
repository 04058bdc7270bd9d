"""Table columns of a custom resource: `Name`, then the version's `additionalPrinterColumns` (each a
JSONPath read with missing keys allowed), or `Age` when it declares none, as upstream's table
convertor. The JSONPath dialect is kubectl's, shared with the CLI's printer."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from svc.cli.printers.errors import TemplateError
from svc.cli.printers.jsonpath import JSONPath, parse_jsonpath, text_of
from svc.wire.views import DEFAULT_COLUMNS, Column

Obj = dict[str, Any]

_AGE = {
    "name": "Age",
    "type": "date",
    "jsonPath": ".metadata.creationTimestamp",
    "description": DEFAULT_COLUMNS[1].description,
}


def _date(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        try:
            datetime.fromisoformat(value)
        except ValueError:
            return "<invalid>"
    return value


def _typed(column_type: str, value: Any) -> Any:
    """Upstream's `cellForJSONValue`: the value when it fits the column's type, else null."""
    if value is None:
        return None
    if column_type == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if column_type == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if column_type == "boolean" and isinstance(value, bool):
        return value
    if column_type == "date":
        return _date(value)
    return None


def _cell(path: JSONPath, column_type: str) -> Callable[[Obj], Any]:
    def cell(obj: Obj) -> Any:
        try:
            results = path.find(obj, allow_missing_keys=True)
        except TemplateError:
            return None
        if not results or not results[0]:
            return None
        value = results[0][0]
        if column_type == "string":
            return text_of(value)
        return _typed(column_type, value)

    return cell


def _never(obj: Obj) -> None:
    return None


def columns_of(version_entry: Obj) -> tuple[Column, ...]:
    declared = version_entry.get("additionalPrinterColumns") or [_AGE]
    columns = [DEFAULT_COLUMNS[0]]
    for item in declared:
        try:
            path = parse_jsonpath("{" + item.get("jsonPath", "") + "}")
            cell = _cell(path, item.get("type", ""))
        except TemplateError:
            cell = _never
        columns.append(
            Column(
                item.get("name", ""),
                item.get("type", ""),
                cell,
                item.get("format", ""),
                item.get("description", ""),
                item.get("priority", 0),
            )
        )
    return tuple(columns)
