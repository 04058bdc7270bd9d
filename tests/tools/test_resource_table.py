"""The committed resource table is exactly what the generator derives from the upstream OpenAPI."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_resource_table", ROOT / "tools" / "gen_resource_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_table_is_generated() -> None:
    generator = _generator()
    if not generator.DEFAULT_SWAGGER.exists():
        pytest.skip(f"the upstream OpenAPI document is not at {generator.DEFAULT_SWAGGER}")
    table = generator.generate(json.loads(generator.DEFAULT_SWAGGER.read_text()))
    committed = json.loads((ROOT / "svc" / "api" / "resource_table.json").read_text())
    assert table == committed


def test_table_facts() -> None:
    rows = json.loads((ROOT / "svc" / "api" / "resource_table.json").read_text())
    by_name = {(row["group"], row["version"], row["resource"]): row for row in rows}
    pods = by_name[("", "v1", "pods")]
    assert pods["kind"] == "Pod"
    assert pods["namespaced"] is True
    assert pods["shortNames"] == ["po"]
    assert pods["subresources"]["status"]["verbs"] == ["get", "patch", "update"]
    assert pods["deleteReturnsObject"] is True
    namespaces = by_name[("", "v1", "namespaces")]
    assert "deletecollection" not in namespaces["verbs"]
    scale = by_name[("apps", "v1", "deployments")]["subresources"]["scale"]
    assert (scale["group"], scale["version"], scale["kind"]) == ("autoscaling", "v1", "Scale")
    assert by_name[("authorization.k8s.io", "v1", "subjectaccessreviews")]["verbs"] == ["create"]
