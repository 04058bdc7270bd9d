"""The table of server-side apply cases in cases.yaml, each with the result upstream gives."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from svc.api.schemas import Schema
from svc.machinery.apply import (
    ApplyConflict,
    FieldSet,
    TypedError,
    apply,
    default_ignored,
    update_managed_fields,
)
from svc.machinery.status import StatusError

CASES = yaml.safe_load((Path(__file__).parent / "cases.yaml").read_text())
ERRORS = {"StatusError": StatusError, "TypedError": TypedError}


def _step_time(index: int) -> str:
    return f"2024-01-01T00:{index:02d}:00Z"


def _run_step(case: dict[str, Any], current: dict[str, Any] | None, index: int, step: dict[str, Any]) -> Any:
    schema = Schema.named(case["schema"]) if case["schema"] else None
    ((action, spec),) = step.items()
    if action == "store":
        return copy.deepcopy(spec)
    subresource = spec.get("subresource", "")
    ignored = default_ignored(status_subresource=case.get("status_subresource", False), subresource=subresource)
    common = {
        "manager": spec["manager"],
        "operation_time": _step_time(index),
        "subresource": subresource,
        "schema": schema,
        "ignored": ignored,
    }
    obj = copy.deepcopy(spec["object"])
    if action == "update":
        return update_managed_fields(current, obj, **common)
    if "conflict" in spec:
        with pytest.raises(ApplyConflict) as raised:
            apply(current, obj, force=spec.get("force", False), **common)
        assert raised.value.message() == spec["conflict"]
        return current
    if "error" in spec:
        expected = spec["error"]
        with pytest.raises(ERRORS[expected["type"]]) as raised:
            apply(current, obj, force=spec.get("force", False), **common)
        assert str(raised.value) == expected["message"]
        if "code" in expected:
            assert raised.value.code == expected["code"]
        return current
    return apply(current, obj, force=spec.get("force", False), **common)


def _check_entry(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, value in expected.items():
        if key == "fields":
            assert FieldSet.from_fields_v1(actual["fieldsV1"]).strings() == value
        elif key == "time" and value is None:
            assert "time" not in actual
        else:
            assert actual.get(key, "") == value, key


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    current = None
    for index, step in enumerate(case["steps"]):
        current = _run_step(case, current, index, step)
    expected = case.get("expect", {})
    if not expected:
        return
    metadata = dict(current.get("metadata", {}))
    entries = metadata.pop("managedFields", [])
    if "object" in expected:
        assert {**current, "metadata": metadata} == expected["object"]
    if "managed" in expected:
        assert [(e.get("manager"), e["operation"]) for e in entries] == [
            (e["manager"], e["operation"]) for e in expected["managed"]
        ]
        for actual, wanted in zip(entries, expected["managed"], strict=True):
            _check_entry(actual, wanted)
