"""Go's quoted string forms: strconv.Quote (`%q`) and encoding/json string literals.

Messages and field paths embed strings exactly as Go quotes them (`"a\\x7f"`, `"x\\u003cy"`), and clients
compare those texts byte for byte. Python's `repr` and JSON encoders (json, orjson) escape different
characters, so Go's rules are written here by hand.
"""

from __future__ import annotations

import unicodedata

_SHORT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}

# json-iterator, which structured-merge-diff uses for field paths, spells \b and \f as \u0008 and \u000c;
# encoding/json has used the short forms since Go 1.22.
_JSONITER_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_SHORT = {**_JSONITER_SHORT, "\b": "\\b", "\f": "\\f"}
_JSON_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def is_print(char: str) -> bool:
    """Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space."""
    return char == " " or unicodedata.category(char)[0] in "LMNPS"


def _escape_rune(char: str, quote: str, ascii_only: bool) -> str:
    if char in (quote, "\\"):
        return "\\" + char
    if is_print(char) and not (ascii_only and ord(char) > 0x7E):
        return char
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        code = 0xFFFD
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def quote(text: str, *, ascii_only: bool = False) -> str:
    """strconv.Quote (or QuoteToASCII)."""
    return '"' + "".join(_escape_rune(c, '"', ascii_only) for c in text) + '"'


def quote_rune(code: int, *, ascii_only: bool = False) -> str:
    """strconv.QuoteRune."""
    char = chr(code) if 0 <= code <= 0x10FFFF else "\ufffd"
    return "'" + _escape_rune(char, "'", ascii_only) + "'"


def can_backquote(text: str) -> bool:
    """strconv.CanBackquote: whether `%#q` may print the text as a raw string."""
    return all(c != "`" and c != "\ufeff" and (c == "\t" or is_print(c)) for c in text)


def json_string(text: str, *, jsoniter: bool = False) -> str:
    """A JSON string literal as encoding/json writes it (HTML characters escaped), or json-iterator."""
    short = _JSONITER_SHORT if jsoniter else _JSON_SHORT
    out = ['"']
    for char in text:
        if char in short:
            out.append(short[char])
        elif char in _JSON_HTML:
            out.append(_JSON_HTML[char])
        elif char < " ":
            out.append(f"\\u{ord(char):04x}")
        elif 0xD800 <= ord(char) <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)
