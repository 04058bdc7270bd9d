"""Schema patterns are RE2: the differences from Python's `re` that CRDs meet are translated."""

from __future__ import annotations

import re

import pytest

from svc.api.crd.patterns import go_pattern


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (r"^[a-z]+\z", "abc", True),
        (r"^[[:alpha:]][[:digit:]]+$", "a12", True),
        (r"^[[:alpha:]][[:digit:]]+$", "1a2", False),
        (r"^\p{L}+$", "héllo", True),
        (r"^\p{L}+$", "h3llo", False),
        (r"^\pL\PN$", "ab", True),
        (r"^[a-z]+$", "abc\n", False),
        (r"^[a-z$]+$", "a$", True),
        (r"(?m)^[a-z]+$", "abc\nd", True),
    ],
)
def test_re2_constructs_are_translated(pattern: str, text: str, matches: bool) -> None:
    compiled = go_pattern(pattern)
    assert compiled is not None
    assert (compiled.search(text) is not None) is matches


def test_valid_re2_python_cannot_express_is_left_unchecked() -> None:
    assert go_pattern(r"^\p{Greek}+$") is None
    assert go_pattern(r"[[:^alpha:]]") is None


def test_an_invalid_pattern_raises() -> None:
    with pytest.raises(re.error):
        go_pattern("(")
