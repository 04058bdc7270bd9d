"""Every file of the CEL spec's conformance vectors runs; a case may only skip with a named reason,
and a failure must be one listed (with its cause) in conformance_known_failures.txt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cel.conformance import (
    BLOCK,
    CONTAINER,
    MESSAGES,
    NO_MACROS,
    TYPE_CHECK,
    UNKNOWNS,
    files,
    run_file,
)

KNOWN = Path(__file__).with_name("conformance_known_failures.txt")
REASONS = {MESSAGES, TYPE_CHECK, UNKNOWNS, CONTAINER, NO_MACROS, BLOCK}


def _known_failures() -> set[str]:
    lines = KNOWN.read_text().splitlines()
    return {line.split("  #")[0].strip() for line in lines if line.strip() and not line.startswith("#")}


def test_the_conformance_data_is_there() -> None:
    assert len(files()) >= 29


@pytest.mark.parametrize("path", files(), ids=lambda p: p.stem)
def test_conformance_file(path: Path) -> None:
    outcomes = run_file(path)
    assert {o.detail for o in outcomes if o.status == "skip"} <= REASONS
    known = _known_failures()
    unexpected = [f"{o.key}: {o.detail}" for o in outcomes if o.status == "fail" and o.key not in known]
    assert not unexpected, "\n".join(unexpected)
    fixed = [o.key for o in outcomes if o.status == "pass" and o.key in known]
    assert not fixed, "passing now, remove from the known failures: " + ", ".join(fixed)
