"""Helpers for the column tests: a fixed clock, timestamps relative to it, and a row of cells."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from svc.wire import views
from svc.wire.views import Column

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)


def ago(**delta: float) -> str:
    """An RFC 3339 timestamp `delta` before the test clock's now."""
    return (NOW - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%SZ")


def micro_ago(**delta: float) -> str:
    return (NOW - timedelta(**delta)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def cells(columns: Sequence[Column], obj: dict[str, Any]) -> list[Any]:
    return views.cells(obj, columns)


def headers(columns: Sequence[Column]) -> list[tuple[str, str, str, int]]:
    """(name, type, format, priority) of each column."""
    return [(column.name, column.type, column.format, column.priority) for column in columns]
