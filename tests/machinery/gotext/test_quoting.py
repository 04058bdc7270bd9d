"""strconv.Quote and encoding/json string literals, checked against Go's output."""

from __future__ import annotations

from svc.machinery.gotext.quoting import json_string, quote


def test_percent_q_escapes_unprintable_characters() -> None:
    assert quote('a"b\\\x7f\u200b\U0001f600é') == '"a\\"b\\\\\\x7f\\u200b\U0001f600é"'


def test_quote_to_ascii_escapes_everything_past_ascii() -> None:
    assert quote("é\U0001f600", ascii_only=True) == '"\\u00e9\\U0001f600"'


def test_json_string_escapes_html_and_control_characters_like_go() -> None:
    assert json_string("<&>\u2028\x01\n") == '"\\u003c\\u0026\\u003e\\u2028\\u0001\\n"'


def test_json_string_uses_go_1_22_short_escapes_for_backspace_and_form_feed() -> None:
    assert json_string("\b\f") == '"\\b\\f"'


def test_json_iterator_spells_backspace_and_form_feed_as_unicode_escapes() -> None:
    assert json_string("\b\f<", jsoniter=True) == '"\\u0008\\u000c\\u003c"'
