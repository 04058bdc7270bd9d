"""The committed zero-value table is exactly what its generator derives from the upstream OpenAPI."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_zero_values", ROOT / "tools" / "gen_zero_values.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_table_is_generated() -> None:
    generator = _generator()
    if not generator.DEFAULT_SWAGGER.exists():
        pytest.skip(f"the upstream OpenAPI document is not at {generator.DEFAULT_SWAGGER}")
    resources = json.loads(generator.RESOURCE_TABLE.read_text())
    table = generator.generate(json.loads(generator.DEFAULT_SWAGGER.read_text()), resources)
    assert table == json.loads(generator.OUTPUT.read_text())


def test_required_status_scalars_come_from_the_document() -> None:
    table = json.loads((ROOT / "svc" / "api" / "zero_values.json").read_text())
    assert table["io.k8s.api.apps.v1.DaemonSet"]["zero"] == {
        "currentNumberScheduled": 0,
        "desiredNumberScheduled": 0,
        "numberMisscheduled": 0,
        "numberReady": 0,
    }
    assert table["io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"]["zero"] == {"desiredReplicas": 0}
    assert table["io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler"]["zero"] == {
        "currentReplicas": 0,
        "desiredReplicas": 0,
    }


def test_kinds_without_required_status_fields_have_no_plan() -> None:
    table = json.loads((ROOT / "svc" / "api" / "zero_values.json").read_text())
    assert "io.k8s.api.core.v1.ConfigMap" not in table
    assert "io.k8s.api.core.v1.PersistentVolume" not in table
