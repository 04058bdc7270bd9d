"""Go's `regexp` (cel-go's `matches`, `find`, `findAll`; kube-openapi's schema `pattern`) on C++ RE2.

C++ RE2 (PyPI `google-re2`) and Go's `regexp/syntax` are ports of one design: the same syntax
with the same Perl flags, leftmost-first matching, and matching time linear in the text, so a
hostile `(a+)+$` cannot stall the server as a backtracking engine would. They differ only in
wording and in a few refusals, which are adjusted here:

- C++'s error texts become Go's (``error parsing regexp: missing closing ): `a(` ``).
- Go refuses what C++ accepts: `\\C` (any byte), capture names beyond `[A-Za-z0-9_]`, `(?<=`
  and `(?<!` (Go reads `(?<` as a named capture), and capture groups nested 1000 deep (Go
  measures the depth of its whole parse tree; counting captures finds the common case).
- C++ compiles a Unicode class to UTF-8 byte ranges where Go uses one instruction, and caps a
  program at 8 MiB (RE2's default, kept: compiling grows with the program, and a CEL rule can
  compile patterns taken from the object). So a counted Unicode class such as `\\pL{1000}`,
  which Go accepts, is refused as Go refuses an expression too large; `[\\pL\\pN]{1,253}` fits.
"""

from __future__ import annotations

import functools
import re
from typing import Final

import re2
from re2 import _re2

from svc.machinery.cel.values import CelError

MAX_NESTING: Final = 1000

_GO_CODES: Final = {
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "invalid named capture group": "invalid named capture",
}
_NAMED_CAPTURE: Final = re.compile(r"\(\?P?<")
_CAPTURE_NAME: Final = re.compile(r"[A-Za-z0-9_]+")
_FLAGS: Final = re.compile(r"\(\?[imsU-]*([:)])?")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_UNANCHORED: Final = _re2.RE2.Anchor.UNANCHORED


class RegexError(CelError):
    """A pattern Go's `regexp.Compile` refuses; the message is Go's."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{text}`")


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # errors are raised, not also printed to stderr
    options.never_capture = True  # CEL wants whole matches only; RE2 then tracks no groups
    return options


_OPTIONS: Final = _options()


def _utf8(text: str) -> bytes:
    """`text` as Go holds it: UTF-8, a lone surrogate (YAML allows `"\\ud800"`) as U+FFFD."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode()


def _compile(pattern: str) -> _re2.RE2:
    compiled = _re2.RE2(_utf8(pattern), _OPTIONS)
    if not compiled.ok():
        raise _cpp_error(compiled.error(), pattern)
    return compiled


def _cpp_error(message: bytes, pattern: str) -> RegexError:
    code, _, arg = message.decode("utf-8", "replace").partition(": ")
    if code == "trailing \\":
        return RegexError("trailing backslash at end of expression", "")
    if code in _GO_CODES:
        return RegexError(_GO_CODES[code], arg)
    if code.startswith("pattern too large"):
        return RegexError("expression too large", pattern)
    return RegexError("regexp/syntax: internal error", pattern)


def _class_end(pattern: str, start: int) -> int:
    """The index after the bracketed class opening at `start` (the pattern's end if unclosed)."""
    index = start + 1
    if pattern.startswith("^", index):
        index += 1
    if pattern.startswith("]", index):
        index += 1
    while index < len(pattern) and pattern[index] != "]":
        if pattern.startswith("[:", index):
            end = pattern.find(":]", index + 2)
            if end >= 0:
                index = end + 2
                continue
        index += 2 if pattern[index] == "\\" else 1
    return index + 1


def _named_capture(pattern: str, start: int) -> RegexError | None:
    """Go's reading of `(?P<name>` and `(?<name>`: names are `[A-Za-z0-9_]+`, and `(?<=` is a
    bad name rather than a lookbehind."""
    found = _NAMED_CAPTURE.match(pattern, start)
    if found is None or found.end() >= len(pattern):
        return None
    end = pattern.find(">", start)
    if end < 0:
        return RegexError("invalid named capture", pattern[start:])
    if _CAPTURE_NAME.fullmatch(pattern, found.end(), end) is None:
        return RegexError("invalid named capture", pattern[start : end + 1])
    return None


def _go_only_error(pattern: str) -> tuple[int, RegexError] | None:
    """The first construct Go refuses and C++ RE2 accepts (or words differently), with its index."""
    index = 0
    # Per open group: 1 if it captures, and the deepest capture nesting inside it.
    groups: list[list[int]] = []
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if pattern.startswith("C", index + 1):
                return index, RegexError("invalid escape sequence", "\\C")
            if pattern.startswith("Q", index + 1):
                end = pattern.find("\\E", index + 2)
                index = len(pattern) if end < 0 else end + 2
                continue
            index += 2
            continue
        if char == "[":
            index = _class_end(pattern, index)
            continue
        if char == "(":
            named = _named_capture(pattern, index)
            if named is not None:
                return index, named
            flags = _FLAGS.match(pattern, index)
            if flags is not None and flags.group(1) == ")":
                index = flags.end()
                continue
            capturing = flags is None or _NAMED_CAPTURE.match(pattern, index) is not None
            groups.append([int(capturing), 0])
        elif char == ")" and groups:
            captures, inner = groups.pop()
            depth = inner + captures
            if depth >= MAX_NESTING:
                return index, RegexError("expression nests too deeply", pattern)
            if groups:
                groups[-1][1] = max(groups[-1][1], depth)
        index += 1
    return None


@functools.lru_cache(maxsize=4096)
def compile_re2(pattern: str) -> Regexp:
    """`pattern` compiled as Go compiles it, or `RegexError` with Go's message; cached, as rules
    and schemas repeat their patterns."""
    go_only = _go_only_error(pattern)
    try:
        compiled = _compile(pattern)
    except RegexError as error:
        if go_only is None:
            raise
        raise (_prefix_error(pattern[: go_only[0]]) or go_only[1]) from error
    if go_only is not None:
        raise go_only[1]
    return Regexp(compiled)


def _prefix_error(prefix: str) -> RegexError | None:
    """The error C++ finds before the Go-only one, if any. The prefix ends between tokens, so
    only its unclosed groups can make it fail without an error of its own."""
    try:
        _compile(prefix)
    except RegexError as error:
        return None if str(error).startswith("error parsing regexp: missing closing )") else error
    return None


def _rune_width(data: bytes, index: int) -> int:
    lead = data[index]
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


class Regexp:
    """A compiled pattern with Go's `MatchString`, `FindString` and `FindAllString`.

    It calls RE2's `Match` on UTF-8 bytes directly: google-re2's `re`-like layer maps byte
    offsets back to characters in Python on every match, several times the cost of the match."""

    __slots__ = ("_compiled",)

    def __init__(self, compiled: _re2.RE2) -> None:
        self._compiled = compiled

    def matches(self, text: str) -> bool:
        data = _utf8(text)
        return self._compiled.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0

    def find(self, text: str) -> str:
        """The leftmost match, or "" when there is none."""
        data = _utf8(text)
        start, end = self._compiled.Match(_UNANCHORED, data, 0, len(data))[0]
        return data[start:end].decode() if start >= 0 else ""

    def find_all(self, text: str, limit: int = -1) -> list[str]:
        """Successive matches, at most `limit` of them when it is positive. As in Go, an empty
        match right after a match is skipped, and each search sees the text before it."""
        data = _utf8(text)
        out: list[str] = []
        position, previous_end = 0, -1
        while position <= len(data) and (limit < 0 or len(out) < limit):
            start, end = self._compiled.Match(_UNANCHORED, data, position, len(data))[0]
            if start < 0:
                break
            accept = True
            if end == position:
                accept = start != previous_end
                position += _rune_width(data, position) if position < len(data) else 1
            else:
                position = end
            previous_end = end
            if accept:
                out.append(data[start:end].decode())
        return out
