"""Shared fixtures: real client binaries for end-to-end tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools" / "bin"


def _kubectl_binaries() -> list[tuple[str, str]]:
    found = []
    system = shutil.which("kubectl")
    if system:
        found.append(("kubectl-system", system))
    bundled = TOOLS / "kubectl"
    found.append(("kubectl-1.35", str(bundled)))
    return found


@pytest.fixture(params=_kubectl_binaries(), ids=lambda pair: pair[0])
def kubectl_binary(request: pytest.FixtureRequest) -> str:
    path = request.param[1]
    if not Path(path).exists():
        pytest.fail(f"{path} is missing: run `make tools` (make test does)")
    return path


@pytest.fixture
def helm_binary() -> str:
    path = TOOLS / "helm"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make tools` (make test does)")
    return str(path)
