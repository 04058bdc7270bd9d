"""Every age in these tests is measured against one fixed clock."""

from __future__ import annotations

import pytest

from svc.api.columns import timing
from tests.api.columns.support import NOW


@pytest.fixture(autouse=True)
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timing, "now", lambda: NOW)
