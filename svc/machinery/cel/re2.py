"""RE2 syntax (Go's `regexp`, which cel-go's `matches`, `find` and `findAll` use) on Python's `re`.

Python's `re` accepts much that RE2 refuses (backreferences, lookaround, possessive and stacked
repetition, `\\Z`, conditionals, comments) and reads some shared spellings differently (`$` also
matches before a final newline, `\\d`/`\\w`/`\\s`/`\\b` are Unicode-wide, `{,n}` is a repetition,
`\\12` a backreference, inline flags apply to the whole pattern). `translate` parses a pattern as
Go's parser does (Perl flags: `(?imsU)`, Perl classes, `\\pN`, `\\Q...\\E`, POSIX classes) and
writes an equivalent Python pattern, or raises `RegexError` with Go's message, such as
``error parsing regexp: invalid escape sequence: `\\1` ``.

Left as is: the matching engine is still Python's backtracking one, so run time is not RE2's
linear bound; Unicode script classes (`\\p{Greek}`) are refused, since the standard library has
no script table (general categories such as `\\pL` and `\\p{Lu}` are supported).
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from dataclasses import dataclass
from typing import Final

from svc.machinery.cel.values import CelError

MAX_REPEAT: Final = 1000
MAX_NESTING: Final = 1000
_MAX_RUNE: Final = sys.maxunicode
_WORD: Final = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_PERL: Final[dict[str, tuple[tuple[int, int], ...]]] = {
    "d": ((0x30, 0x39),),
    "s": ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)),
    "w": _WORD,
}
_POSIX: Final[dict[str, tuple[tuple[int, int], ...]]] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": _WORD,
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}
_SIMPLE_ESCAPES: Final = {"a": 0x07, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_GENERAL_CATEGORIES: Final = frozenset(
    {"Cc", "Cf", "Co", "Cs", "Ll", "Lm", "Lo", "Lt", "Lu", "Mc", "Me", "Mn", "Nd", "Nl", "No"}
    | {"Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Sc", "Sk", "Sm", "So", "Zl", "Zp", "Zs"}
)
_WORD_CLASS: Final = "[0-9A-Za-z_]"
_BOUNDARY: Final = f"(?:(?<={_WORD_CLASS})(?!{_WORD_CLASS})|(?<!{_WORD_CLASS})(?={_WORD_CLASS}))"
_NOT_BOUNDARY: Final = f"(?:(?<={_WORD_CLASS})(?={_WORD_CLASS})|(?<!{_WORD_CLASS})(?!{_WORD_CLASS}))"

Ranges = tuple[tuple[int, int], ...]


class RegexError(CelError):
    """A pattern RE2 refuses; the message is Go's `regexp.Compile` error."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{text}`")


@dataclass
class _Flags:
    fold: bool = False
    multiline: bool = False
    dot_nl: bool = False
    ungreedy: bool = False

    def copy(self) -> _Flags:
        return _Flags(self.fold, self.multiline, self.dot_nl, self.ungreedy)


def _negate(ranges: Ranges) -> Ranges:
    out = []
    next_low = 0
    for low, high in sorted(ranges):
        if low > next_low:
            out.append((next_low, low - 1))
        next_low = max(next_low, high + 1)
    if next_low <= _MAX_RUNE:
        out.append((next_low, _MAX_RUNE))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _category(name: str) -> Ranges:
    """Code point ranges of a Unicode general category (`L`, `Lu`, ...), built once per name."""
    out: list[tuple[int, int]] = []
    for point in range(_MAX_RUNE + 1):
        if unicodedata.category(chr(point)).startswith(name):
            if out and out[-1][1] == point - 1:
                out[-1] = (out[-1][0], point)
            else:
                out.append((point, point))
    return tuple(out)


def _unicode_class(name: str) -> Ranges | None:
    if name == "Any":
        return ((0, _MAX_RUNE),)
    if name in _GENERAL_CATEGORIES or (len(name) == 1 and any(c.startswith(name) for c in _GENERAL_CATEGORIES)):
        return _category(name)
    return None


def _is_class(text: str) -> bool:
    """Whether `text` is one bracketed class as `_class_text` writes it (repeatable as it is)."""
    return text.startswith("[") and text.endswith("]") and text.count("[") == 1


def _char(point: int) -> str:
    return f"\\U{point:08x}" if point > 0xFFFF else f"\\u{point:04x}"


def _class_text(ranges: Ranges, negated: bool = False) -> str:
    parts = "".join(_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in sorted(ranges))
    if not parts:
        return "[^\\u0000-\\U0010ffff]" if not negated else "[\\u0000-\\U0010ffff]"
    return f"[{'^' if negated else ''}{parts}]"


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.pos = 0
        self.flags = _Flags()
        self.depth = 0

    # -- helpers ---------------------------------------------------------------------------

    def peek(self, offset: int = 0) -> str:
        at = self.pos + offset
        return self.text[at] if at < len(self.text) else ""

    def rest(self) -> str:
        return self.text[self.pos :]

    # -- structure -------------------------------------------------------------------------

    def parse(self) -> str:
        out, _ = self.alternation()
        if self.pos < len(self.text):
            raise RegexError("unexpected )", self.text)
        return out

    def alternation(self) -> tuple[str, int]:
        """The branches and the largest product of `{n,m}` counts nested in them."""
        text, weight = self.concatenation()
        branches = [text]
        while self.peek() == "|":
            self.pos += 1
            text, inner = self.concatenation()
            branches.append(text)
            weight = max(weight, inner)
        return "|".join(branches), weight

    def concatenation(self) -> tuple[str, int]:
        out: list[str] = []
        weight = 1
        while self.pos < len(self.text) and self.peek() not in "|)":
            atom = self.atom()
            if atom is None:
                continue
            text, inner = self.repetitions(*atom)
            out.append(text)
            weight = max(weight, inner)
        return "".join(out), weight

    def repetitions(self, text: str, weight: int) -> tuple[str, int]:
        """Apply the repetition operators after an atom. Perl mode forbids stacking them, and
        Go refuses `{n,m}` counts whose nested product passes 1000."""
        previous = -1
        while True:
            op_start = self.pos
            found = self.repetition()
            if found is None:
                return text, weight
            if previous >= 0:
                raise RegexError("invalid nested repetition operator", self.text[previous : self.pos])
            low, high, op = found
            if low is not None and high is not None:
                weight *= max(high if high >= 0 else low, 1)
                if weight > MAX_REPEAT and (low >= 2 or high >= 2):
                    raise RegexError("invalid repeat count", self.text[op_start : self.pos])
            text = f"{text}{op}" if _is_class(text) and previous < 0 else f"(?:{text}){op}"
            previous = op_start

    def repetition(self) -> tuple[int | None, int | None, str] | None:
        """The operator at the cursor as (min, max, Python spelling), or None (no operator)."""
        c = self.peek()
        low: int | None = None
        high: int | None = None
        if c and c in "*+?":
            self.pos += 1
            op = c
        elif c == "{":
            found = re.match(r"\{(\d+)(?:(,)(\d*))?\}", self.rest())
            if found is None:
                return None
            low = int(found.group(1))
            high = low if found.group(2) is None else (int(found.group(3)) if found.group(3) else -1)
            start = self.pos
            self.pos += found.end()
            if low > MAX_REPEAT or high > MAX_REPEAT or (high >= 0 and low > high):
                raise RegexError("invalid repeat count", self.text[start : self.pos])
            op = f"{{{low}}}" if high == low else (f"{{{low},}}" if high < 0 else f"{{{low},{high}}}")
        else:
            return None
        lazy = self.peek() == "?"
        if lazy:
            self.pos += 1
        if lazy != self.flags.ungreedy:
            op += "?"
        return low, high, op

    def atom(self) -> tuple[str, int] | None:
        """One atom as (Python text, repeat weight), or None for a flag group that only sets flags."""
        c = self.peek()
        if c in "*+?" or (c == "{" and self.repetition_at_cursor()):
            start = self.pos
            self.repetition()
            raise RegexError("missing argument to repetition operator", self.text[start : self.pos])
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class(), 1
        if c == "\\":
            return self.escape()
        self.pos += 1
        if c == ".":
            return ("(?s:.)" if self.flags.dot_nl else "."), 1
        if c == "^":
            return ("(?m:^)" if self.flags.multiline else "\\A"), 1
        if c == "$":
            return ("(?m:$)" if self.flags.multiline else "\\Z"), 1
        return self.literal(re.escape(c)), 1

    def repetition_at_cursor(self) -> bool:
        return re.match(r"\{\d+(?:,\d*)?\}", self.rest()) is not None

    def literal(self, text: str) -> str:
        return f"(?i:{text})" if self.flags.fold else text

    def group(self) -> tuple[str, int] | None:
        start = self.pos
        rest = self.rest()
        saved = self.flags.copy()
        if rest.startswith("(?"):
            named = re.match(r"\(\?P?<", rest)
            if named is not None:
                end = rest.find(">")
                if end < 0:
                    raise RegexError("invalid named capture", rest)
                name = rest[named.end() : end]
                if not re.fullmatch(r"[A-Za-z0-9_]+", name):
                    raise RegexError("invalid named capture", rest[: end + 1])
                self.pos += end + 1
            elif self.flag_group(start):
                return None
        else:
            self.pos += 1
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise RegexError("expression nests too deeply", self.text)
        inner, weight = self.alternation()
        self.depth -= 1
        if self.peek() != ")":
            raise RegexError("missing closing )", self.text)
        self.pos += 1
        self.flags = saved
        return f"(?:{inner})", weight

    def flag_group(self, start: int) -> bool:
        """`(?flags)` (True: flags set for the rest of the group) or `(?flags:` (False: a group
        follows, with the flags set inside it)."""
        self.pos += 2
        flags = self.flags.copy()
        negate = False
        seen = False
        while self.pos < len(self.text):
            c = self.peek()
            self.pos += 1
            if c in "imsU":
                setattr(flags, {"i": "fold", "m": "multiline", "s": "dot_nl", "U": "ungreedy"}[c], not negate)
                seen = True
                continue
            if c == "-" and not negate:
                negate, seen = True, False
                continue
            if c in ":)" and (seen or not negate):
                self.flags = flags
                return c == ")"
            break
        raise RegexError("invalid or unsupported Perl syntax", self.text[start : self.pos])

    # -- escapes ---------------------------------------------------------------------------

    def escape(self) -> tuple[str, int] | None:
        start = self.pos
        self.pos += 1
        c = self.peek()
        if c == "":
            raise RegexError("trailing backslash at end of expression", "")
        if c == "Q":
            self.pos += 1
            end = self.text.find("\\E", self.pos)
            literal = self.text[self.pos :] if end < 0 else self.text[self.pos : end]
            self.pos = len(self.text) if end < 0 else end + 2
            return (self.literal(re.escape(literal)) if literal else ""), 1
        if c in "AzbB":
            self.pos += 1
            return {"A": "\\A", "z": "\\Z", "b": _BOUNDARY, "B": _NOT_BOUNDARY}[c], 1
        ranges = self.class_escape(start)
        if ranges is not None:
            return self.literal(_class_text(*ranges)), 1
        self.pos = start
        return self.literal(re.escape(chr(self.escaped_char()))), 1

    def class_escape(self, start: int) -> tuple[Ranges, bool] | None:
        """`\\d`, `\\pL`, `\\P{Lu}` ... at the cursor (after the backslash), as (ranges, negated)."""
        c = self.peek()
        if c.lower() in _PERL:
            self.pos += 1
            return _PERL[c.lower()], c.isupper()
        if c and c in "pP":
            negated = c == "P"
            self.pos += 1
            if self.peek() == "{":
                end = self.text.find("}", self.pos)
                if end < 0:
                    raise RegexError("invalid character class range", self.text[start:])
                name = self.text[self.pos + 1 : end]
                self.pos = end + 1
            else:
                name = self.peek()
                if not name:
                    raise RegexError("invalid character class range", self.text[start:])
                self.pos += 1
            if name.startswith("^"):
                negated, name = not negated, name[1:]
            ranges = _unicode_class(name)
            if ranges is None and name[:1].isupper() and name.isalpha() and len(name) > 2:
                seq = self.text[start : self.pos]
                raise CelError(f"error parsing regexp: Unicode script classes are not supported: `{seq}`")
            if ranges is None:
                raise RegexError("invalid character class range", self.text[start : self.pos])
            return ranges, negated
        return None

    def escaped_char(self) -> int:
        """The code point of a character escape at the cursor (on the backslash)."""
        start = self.pos
        self.pos += 1
        c = self.peek()
        self.pos += 1
        if not c:
            raise RegexError("trailing backslash at end of expression", "")
        if c in "1234567" and self.peek() not in tuple("01234567"):
            raise RegexError("invalid escape sequence", self.text[start : self.pos])
        if c in "01234567":
            digits = c
            while len(digits) < 3 and self.peek() in tuple("01234567"):
                digits += self.peek()
                self.pos += 1
            return int(digits, 8)
        if c == "x":
            if self.peek() == "{":
                found = re.match(r"\{([0-9A-Fa-f]+)\}", self.rest())
                if found is None or int(found.group(1), 16) > _MAX_RUNE:
                    end = self.text.find("}", self.pos)
                    self.pos = len(self.text) if end < 0 else end + 1
                    raise RegexError("invalid escape sequence", self.text[start : self.pos])
                self.pos += found.end()
                return int(found.group(1), 16)
            found = re.match(r"[0-9A-Fa-f]{2}", self.rest())
            if found is None:
                self.pos = min(len(self.text), self.pos + 2)
                raise RegexError("invalid escape sequence", self.text[start : self.pos])
            self.pos += 2
            return int(found.group(), 16)
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c]
        if c and ord(c) < 0x80 and not c.isalnum():
            return ord(c)
        raise RegexError("invalid escape sequence", self.text[start : self.pos])

    # -- character classes -----------------------------------------------------------------

    def char_class(self) -> str:
        start = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while self.peek() != "]" or first:
            if self.pos >= len(self.text):
                raise RegexError("missing closing ]", self.text[start:])
            first = False
            posix = re.match(r"\[:(\^?)(.*?):\]", self.rest(), re.DOTALL)
            if posix is not None:
                if posix.group(2) not in _POSIX:
                    raise RegexError("invalid character class range", posix.group())
                found = _POSIX[posix.group(2)]
                ranges.extend(_negate(found) if posix.group(1) else found)
                self.pos += posix.end()
                continue
            if self.peek() == "\\":
                escape_start = self.pos
                self.pos += 1
                named = self.class_escape(escape_start)
                if named is not None:
                    ranges.extend(_negate(named[0]) if named[1] else named[0])
                    continue
                self.pos = escape_start
            range_start = self.pos
            low = self.class_char()
            high = low
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                high = self.class_char()
                if high < low:
                    raise RegexError("invalid character class range", self.text[range_start : self.pos])
            ranges.append((low, high))
        self.pos += 1
        return self.literal(_class_text(tuple(ranges), negated))

    def class_char(self) -> int:
        c = self.peek()
        if c == "":
            raise RegexError("missing closing ]", self.text)
        if c == "\\":
            return self.escaped_char()
        self.pos += 1
        return ord(c)


@functools.lru_cache(maxsize=4096)
def translate(pattern: str) -> str:
    """The Python `re` spelling of RE2 `pattern`; raises `RegexError` where Go's parser would."""
    return _Parser(pattern).parse()


@functools.lru_cache(maxsize=4096)
def compile_re2(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled with RE2's meaning; patterns are cached, as rules repeat them."""
    return re.compile(translate(pattern))
