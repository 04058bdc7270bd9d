"""fmt.Sprintf, Sprint and Sprintln over decoded JSON values, checked against Go's own output."""

from __future__ import annotations

import pytest

from svc.machinery.gotext.printf import sprint, sprintf, sprintln
from svc.machinery.gotext.values import GoInt


@pytest.mark.parametrize(
    ("template", "args", "expected"),
    [
        ("%05d|%-5d|%+d|%x|%X|%#x|%o|%b|%c|%q|%U", [42, 42, 42, 255, 255, 255, 8, 5, 65, 65, 65],
         "00042|42   |+42|ff|FF|0xff|10|101|A|'A'|U+0041"),
        ("%5.1f|%e|%g|%.3g|%G|%08.3f|%+.2e", [3.14159, 1234.5678, 1234.5678, 1234.5678, 1e-7, -3.14159, 12345.678],
         "  3.1|1.234568e+03|1234.5678|1.23e+03|1E-07|-003.142|+1.23e+04"),
        ("%5s|%-5s|%.2s|%q|%x|%X|% x|%5t|%v|%d|%s",
         ["ab", "ab", "abc", 'a"b', "hi", "hi", "hi", True, None, None, True],
         '   ab|ab   |ab|"a\\"b"|6869|6869|68 69| true|<nil>|%!d(<nil>)|%!s(bool=true)'),
        ("%10v|%-10v|", [[GoInt(1), "a"], {"a": GoInt(1)}], "[         1          a]|map[a         :1         ]|"),
        ("%6.2v|%.2v|%q|%d|%v", [3.14159, "abc", ["a", 1], ["a", 1], {}],
         "   3.1|ab|[\"a\" '\\x01']|[%!d(string=a) 1]|map[]"),
        ("100%%", [], "100%"),
        ("%d", [], "%!d(MISSING)"),
        ("%d", [1, "x"], "1%!(EXTRA string=x)"),
    ],
)  # fmt: skip
def test_sprintf_matches_go(template: str, args: list[object], expected: str) -> None:
    assert sprintf(template, args) == expected


def test_sprint_spaces_only_between_non_strings() -> None:
    assert sprint(["a", 1, 2, "b", 3.0, None, True]) == "a1 2b3 <nil> true"


def test_sprintln_separates_every_operand() -> None:
    assert sprintln(["a", 1, None]) == "a 1 <nil>\n"
