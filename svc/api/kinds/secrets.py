"""Secrets: `stringData` is write-only convenience; upstream merges it into `data` (base64) on decode
(only when it has keys: `stringData: {}` leaves `data` as sent). An immutable Secret's `data` is
compared with `reflect.DeepEqual`, so `data: {}` sent to one stored without data is a change."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

from svc.api.strategy import Strategy


def merge_string_data(obj: dict[str, Any]) -> None:
    string_data = obj.pop("stringData", None)
    if not isinstance(string_data, dict) or not string_data:
        return
    data = obj.get("data")
    if not isinstance(data, dict):
        data = obj["data"] = {}
    for key, value in string_data.items():
        if isinstance(value, str):
            data[key] = base64.b64encode(value.encode()).decode()


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(base, normalize=merge_string_data, nil_distinct_maps=("data",))
