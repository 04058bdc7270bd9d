"""views.cells: a row's cells, with readings shared between columns made once."""

from __future__ import annotations

from svc.wire.views import Column, cells


def test_a_reading_shared_by_columns_is_made_once_per_row() -> None:
    made: list[str] = []

    def reading(obj: dict) -> dict:
        made.append(obj["name"])
        return {"upper": obj["name"].upper(), "size": len(obj["name"])}

    columns = [
        Column("Name", "string", lambda obj: obj["name"]),
        Column("Upper", "string", lambda found: found["upper"], via=reading),
        Column("Size", "integer", lambda found: found["size"], via=reading),
    ]
    assert cells({"name": "web"}, columns) == ["web", "WEB", 3]
    assert cells({"name": "db"}, columns) == ["db", "DB", 2]
    assert made == ["web", "db"]
