"""Go's regexp for `matches`, `find` and `findAll`, run on RE2: what Go refuses is refused with Go's
message (also where C++ RE2 accepts or words it differently), and patterns mean what they mean in Go
(examples from Go's regexp/syntax docs and upstream's apiextensions validation tests)."""

from __future__ import annotations

from typing import Any

import pytest

from svc.machinery.cel import CelError, Environment
from svc.machinery.cel.re2 import RegexError, compile_re2
from svc.machinery.cel.rules import compile_rule

ENV = Environment(["s"])


def evaluate(expression: str, s: str = "") -> Any:
    return ENV.compile(expression).evaluate({"s": s})


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"(a)\1", r"invalid escape sequence: `\1`"),
        (r"\8", r"invalid escape sequence: `\8`"),
        (r"\Z", r"invalid escape sequence: `\Z`"),
        (r"\C", r"invalid escape sequence: `\C`"),
        (r"[\b]", r"invalid escape sequence: `\b`"),
        ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
        ("(?!a)", "invalid or unsupported Perl syntax: `(?!`"),
        ("(?>a)", "invalid or unsupported Perl syntax: `(?>`"),
        ("(?#note)", "invalid or unsupported Perl syntax: `(?#`"),
        ("(?P=n)", "invalid or unsupported Perl syntax: `(?P`"),
        ("(?z)", "invalid or unsupported Perl syntax: `(?z`"),
        ("(?<=a)b", "invalid named capture: `(?<=a)b`"),
        ("x++", "invalid nested repetition operator: `++`"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("a*?*", "invalid nested repetition operator: `*?*`"),
        ("a{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
        ("a{1001}", "invalid repeat count: `{1001}`"),
        ("a{2,1}", "invalid repeat count: `{2,1}`"),
        ("(a{100}){100}", "invalid repeat count: `{100}`"),
        ("*", "missing argument to repetition operator: `*`"),
        ("a|+", "missing argument to repetition operator: `+`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("[[:word2:]]", "invalid character class range: `[:word2:]`"),
        ("[a", "missing closing ]: `[a`"),
        ("a(", "missing closing ): `a(`"),
        ("a)", "unexpected ): `a)`"),
        ("a\\", "trailing backslash at end of expression: ``"),
        (r"\x{110000}", r"invalid escape sequence: `\x{110000`"),
        # Refused by Go, accepted by C++ RE2.
        (r"a\Cb", r"invalid escape sequence: `\C`"),
        ("(?P<é>x)", "invalid named capture: `(?P<é>`"),
        ("(?<!a)b", "invalid named capture: `(?<!a)b`"),
        ("(?<=a>b)", "invalid named capture: `(?<=a>`"),
        # The first error in the pattern is the one reported.
        (r"x**\C", "invalid nested repetition operator: `**`"),
        (r"\C(", r"invalid escape sequence: `\C`"),
        ("(" * 1000 + "a" + ")" * 1000, "expression nests too deeply: `" + "(" * 1000 + "a" + ")" * 1000 + "`"),
        ("(" * 1000 + "a", "missing closing ): `" + "(" * 1000 + "a`"),
        (r"\pL{1000}", r"expression too large: `\pL{1000}`"),
    ],
)
def test_what_re2_refuses_is_refused_with_gos_message(pattern: str, message: str) -> None:
    with pytest.raises(RegexError) as caught:
        compile_re2(pattern)
    assert str(caught.value) == f"error parsing regexp: {message}"


@pytest.mark.parametrize(
    ("expression", "text", "expected"),
    [
        # `$` is the end of the text, not also before a final newline.
        ("s.matches('a$')", "a\n", False),
        ("s.matches('(?m)a$')", "a\n", True),
        (r"s.matches('a\\z')", "a", True),
        # Perl classes and word boundaries are ASCII.
        (r"s.matches('^\\d$')", "\u0663", False),
        (r"s.findAll('\\w+')", "héllo", ["h", "llo"]),
        (r"s.matches('\\bé')", "xé", True),
        (r"s.matches('^\\s$')", "\v", False),
        # Unicode general categories and POSIX classes.
        (r"s.findAll('\\pL+')", "héllo wörld 12", ["héllo", "wörld"]),
        (r"s.findAll('\\p{Lu}')", "aÉb", ["É"]),
        ("s.findAll('[[:digit:]]+')", "a12b3", ["12", "3"]),
        # `{,n}` is literal text; `\12` is octal; `\Q...\E` quotes.
        ("s.matches('^a{,2}$')", "a{,2}", True),
        (r"s.matches('^\\101$')", "A", True),
        (r"s.matches('^\\Qa.b\\E$')", "axb", False),
        (r"s.matches('^\\x{41}$')", "A", True),
        # Inline flags apply from where they stand to the end of the group, across alternatives.
        ("s.findAll('a(?i)b|c')", "aB C ab Ab", ["aB", "C", "ab"]),
        ("s.findAll('(?U)a+')", "aaa", ["a", "a", "a"]),
        ("s.matches('(?s)^a.b$')", "a\nb", True),
        ("s.matches('^a.b$')", "a\nb", False),
        ("s.find('(?P<word>[a-z]+)')", "12 ab", "ab"),
        # Unicode scripts.
        (r"s.findAll('\\p{Greek}+')", "abc αβγ δ", ["αβγ", "δ"]),
        (r"s.matches('^\\P{Greek}+$')", "abc", True),
        # Go's FindAllString: no empty match right after a match; matches see the text before them.
        ("s.findAll('a*')", "baaac", ["", "aaa", ""]),
        ("s.findAll('^a')", "aaa", ["a"]),
        ("s.findAll('a|', 2)", "aab", ["a", "a"]),
    ],
)
def test_patterns_mean_what_they_mean_in_re2(expression: str, text: str, expected: Any) -> None:
    assert evaluate(expression, text) == expected


def test_nesting_below_gos_limit_compiles() -> None:
    compile_re2("(" * 999 + "a" + ")" * 999)
    compile_re2("(?:" * 1500 + "a" + ")" * 1500)


@pytest.mark.timeout(5)
@pytest.mark.parametrize("function", ["matches", "find", "findAll"])
def test_a_nested_quantifier_on_hostile_input_finishes(function: str) -> None:
    expected = {"matches": False, "find": "", "findAll": []}[function]
    assert evaluate(f"s.{function}('(a+)+$')", "a" * 5000 + "b") == expected


def test_a_lone_surrogate_in_the_text_matches_as_a_replacement_character() -> None:
    assert evaluate("s.findAll('[^a]')", "\ud800a") == ["\ufffd"]


def test_a_constant_matches_pattern_re2_refuses_fails_the_rule_when_it_is_written() -> None:
    schema = {"type": "object", "properties": {"str": {"type": "string"}}}
    with pytest.raises(CelError) as caught:
        compile_rule(schema, "self.str.matches('x++')")
    assert str(caught.value) == (
        "compilation failed: ERROR: <input>:1:18: invalid matches argument\n"
        " | self.str.matches('x++')\n"
        " | .................^"
    )


@pytest.mark.parametrize("rule", ["self.str.find(')') == ''", "self.str.findAll(')') == []"])
def test_a_constant_find_pattern_re2_refuses_fails_when_the_program_is_built(rule: str) -> None:
    schema = {"type": "object", "properties": {"str": {"type": "string"}}}
    with pytest.raises(CelError) as caught:
        compile_rule(schema, rule)
    assert str(caught.value) == "program instantiation failed: error parsing regexp: unexpected ): `)`"


def test_a_computed_pattern_re2_refuses_fails_at_evaluation_with_gos_message() -> None:
    with pytest.raises(CelError) as caught:
        evaluate("s.matches(s)", "(?=x)")
    assert str(caught.value) == "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
