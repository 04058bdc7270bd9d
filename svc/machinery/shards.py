"""Shard selectors for sharded list and watch (`shardSelector`, alpha in 1.36, gate `ShardedListAndWatch`).

A selector is a CEL expression such as
``shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(...)``.
Upstream parses it with cel-go and walks the syntax tree without evaluating it, so a malformed selector is
reported either with cel-go's parse message (prefixed ``CEL parse error: ``) or with the walker's own
message; both are reproduced here. An object belongs to a range when the 64-bit FNV-1a hash of the UTF-8
bytes of its uid (or namespace; a missing value hashes as the empty string) lies in [start, end).

The CEL tokenizer and parser are written by hand: no maintained Python package parses CEL into cel-go's
node kinds with cel-go's messages, and a selector never needs evaluation. Syntax errors use the wording of
ANTLR's default error strategy (token recognition error, extraneous/missing/mismatched input, no viable
alternative) with the expected-token sets cel-go reports for the cases a selector can plausibly hit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from svc.machinery.gotext import quote

FNV_OFFSET_BASIS = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
HASH_SPACE_END = 1 << 64
FIELD_PATHS = ("object.metadata.uid", "object.metadata.namespace")

_MASK = HASH_SPACE_END - 1
_METADATA_KEYS = {"object.metadata.uid": "uid", "object.metadata.namespace": "namespace"}
_MAX_CODE_POINTS = 100_000
_MAX_DEPTH = 250


class ShardSelectorError(ValueError):
    """A shard selector that upstream would reject, with upstream's message."""


def fnv1a_64(data: bytes) -> int:
    """64-bit FNV-1a, the hash upstream places objects in shards with."""
    value = FNV_OFFSET_BASIS
    for byte in data:
        value = ((value ^ byte) * FNV_PRIME) & _MASK
    return value


def shard_hash(obj: Mapping[str, Any], field_path: str) -> int:
    """The hash a selector compares for `obj`; clients use it to filter locally when a server ignores sharding."""
    key = _METADATA_KEYS.get(field_path)
    if key is None:
        raise ShardSelectorError(f"unsupported field path: {quote(field_path)}")
    metadata = obj.get("metadata")
    value = metadata.get(key) if isinstance(metadata, Mapping) else None
    text = value if isinstance(value, str) else ""
    try:
        return fnv1a_64(text.encode())
    except UnicodeEncodeError:
        # Go decodes a lone surrogate in JSON to U+FFFD, so hash the bytes it would hold.
        return fnv1a_64(re.sub("[\ud800-\udfff]", "\ufffd", text).encode())


@dataclass(frozen=True)
class ShardRange:
    """One `shardRange(field, start, end)` term: the half-open hash interval [start, end)."""

    field_path: str
    start: int
    end: int

    def contains(self, hash_value: int) -> bool:
        return self.start <= hash_value < self.end

    def __str__(self) -> str:
        return f"shardRange({self.field_path}, '0x{self.start:016x}', '0x{self.end:016x}')"


@dataclass(frozen=True)
class ShardSelector:
    """Ranges joined by `||`, all over one field; `str()` is the form upstream echoes in `shardInfo.selector`."""

    ranges: tuple[ShardRange, ...]

    def __post_init__(self) -> None:
        if not self.ranges:
            raise ShardSelectorError("empty shard selector is not allowed; omit the parameter for unfiltered lists")
        first = self.ranges[0].field_path
        for other in self.ranges[1:]:
            if other.field_path != first:
                raise ShardSelectorError(f"inconsistent shard keys: {quote(first)} vs {quote(other.field_path)}")

    @property
    def field_path(self) -> str:
        return self.ranges[0].field_path

    def matches(self, obj: Mapping[str, Any]) -> bool:
        hash_value = shard_hash(obj, self.field_path)
        return any(shard.contains(hash_value) for shard in self.ranges)

    def __str__(self) -> str:
        return " || ".join(str(shard) for shard in self.ranges)


def parse_shard_selector(text: str) -> ShardSelector:
    """Parse the `shardSelector` list option, raising `ShardSelectorError` with upstream's message."""
    expression = text.strip(_GO_SPACE)
    if not expression:
        raise ShardSelectorError("empty shard selector is not allowed; omit the parameter for unfiltered lists")
    try:
        root = _parse_cel(expression)
        ranges = _collect_ranges(root)
    except RecursionError:
        raise ShardSelectorError(f"CEL parse error: expression recursion limit exceeded: {_MAX_DEPTH}") from None
    for other in ranges[1:]:
        if other.field_path != ranges[0].field_path:
            raise ShardSelectorError(
                f"all shard ranges must use the same field, got {quote(ranges[0].field_path)} "
                f"and {quote(other.field_path)}"
            )
    return ShardSelector(tuple(ranges))


# --- the walk over the CEL syntax tree (upstream's k8s.io/apiserver/pkg/sharding) ---------------------------

_CALL, _IDENT, _LIST, _LITERAL, _MAP, _SELECT, _STRUCT = 1, 3, 4, 5, 6, 7, 8


def _collect_ranges(root: _Node) -> list[ShardRange]:
    ranges: list[ShardRange] = []
    pending = [root]
    while pending:
        node = pending.pop()
        if node.kind != _CALL:
            raise ShardSelectorError(
                f"unexpected expression kind {node.kind}; expected shardRange() call or || operator"
            )
        if node.name == "_||_":
            pending.extend(reversed(node.args))
        elif node.name == "shardRange":
            ranges.append(_shard_range(node.args))
        else:
            raise ShardSelectorError(f"unsupported function {quote(node.name)}; only shardRange() and || are allowed")
    return ranges


def _shard_range(args: list[_Node]) -> ShardRange:
    if len(args) != 3:
        raise ShardSelectorError(f"shardRange() requires exactly 3 arguments, got {len(args)}")
    path = _field_path(args[0])
    if path not in FIELD_PATHS:
        raise ShardSelectorError(
            f"unsupported field path {quote(path)}; supported: object.metadata.uid, object.metadata.namespace"
        )
    start = _hex_bound(args[1], "hexStart")
    end = _hex_bound(args[2], "hexEnd")
    if int(start, 16) >= int(end, 16):
        raise ShardSelectorError(f"shard range start {start} must be less than end {end}")
    return ShardRange(path, int(start, 16), int(end, 16))


def _field_path(node: _Node) -> str:
    names = []
    while node.kind == _SELECT:
        names.append(node.name)
        node = node.args[0]
    if node.kind != _IDENT:
        raise ShardSelectorError(
            "shardRange() first argument: expected field path (e.g. object.metadata.uid), "
            f"got expression kind {node.kind}"
        )
    return ".".join([node.name, *reversed(names)])


def _hex_bound(node: _Node, name: str) -> str:
    if node.kind != _LITERAL:
        raise ShardSelectorError(f"{name} must be a string literal (e.g. '0xff'), got expression kind {node.kind}")
    if node.go_type != "string":
        raise ShardSelectorError(f"{name} must be a string literal, got {node.go_type}")
    text = node.value
    if not text.startswith("0x"):
        raise ShardSelectorError(f"{name} must have '0x' prefix, got {quote(text)}")
    digits = text[2:]
    if not digits:
        raise ShardSelectorError(f"{name}: hex value is required after '0x'")
    size = len(digits.encode("utf-8", "surrogatepass"))
    if size > 17:
        raise ShardSelectorError(f"{name}: hex value too long ({size} chars, max 17): {quote(digits)}")
    for char in digits:
        if char not in "0123456789abcdef":
            raise ShardSelectorError(f"{name}: invalid hex character {quote(char)} in {quote(text)}")
    if size == 17 and text != "0x10000000000000000":
        raise ShardSelectorError(f"{name}: 17-digit hex value must be '0x10000000000000000' (2^64), got {quote(text)}")
    if size < 16:
        suggestion = "0x" + digits.rjust(16, "0")
        raise ShardSelectorError(
            f"{name} must be a 0x-prefixed 16-digit hex value, got {quote(text)} (did you mean {quote(suggestion)}?)"
        )
    return text


# --- CEL syntax tree -------------------------------------------------------------------------------------------


class _Node:
    """A cel-go AST node reduced to what the walk and cel-go's post-parse checks need.

    `visit` lists, in cel-go's visiting order, the children and the check failures (strings) that the
    visitor reports on the way; `counted` marks the node types cel-go's visitor counts toward its depth.
    """

    __slots__ = ("args", "counted", "go_type", "kind", "name", "value", "visit")

    def __init__(
        self,
        kind: int,
        name: str = "",
        args: list[_Node] | None = None,
        *,
        visit: list[_Node | str] | None = None,
        counted: bool = False,
        value: Any = None,
        go_type: str = "",
    ) -> None:
        self.kind = kind
        self.name = name
        self.args = args or []
        self.visit: list[_Node | str] = list(self.args) if visit is None else visit
        self.counted = counted
        self.value = value
        self.go_type = go_type


def _check_tree(root: _Node) -> None:
    """cel-go's post-parse checks (reserved names, literals, optional syntax, visit depth), first failure wins."""
    pending: list[tuple[_Node | str, int]] = [(root, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            raise ShardSelectorError(f"CEL parse error: {item}")
        if item.counted:
            depth += 1
            if depth > _MAX_DEPTH:
                raise ShardSelectorError("CEL parse error: max recursion depth exceeded")
        pending.extend((child, depth) for child in reversed(item.visit))


# --- CEL tokens ------------------------------------------------------------------------------------------------

_GO_SPACE = (  # unicode.IsSpace, what Go's strings.TrimSpace strips
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

# Token types numbered as in cel-go's generated CEL lexer: error messages list expected tokens in this order.
_EOF = -1
_EQ, _NE, _IN, _LT, _LE, _GE, _GT, _AND, _OR = range(1, 10)
_LBRACKET, _RBRACKET, _LBRACE, _RBRACE, _LPAREN, _RPAREN, _DOT, _COMMA = range(10, 18)
_MINUS, _EXCLAM, _QUESTION, _COLON, _PLUS, _STAR, _SLASH, _PERCENT = range(18, 26)
_TRUE, _FALSE, _NULL = range(26, 29)
_PUNCTUATION = {
    "==": _EQ, "!=": _NE, "<": _LT, "<=": _LE, ">=": _GE, ">": _GT, "&&": _AND, "||": _OR,
    "[": _LBRACKET, "]": _RBRACKET, "{": _LBRACE, "}": _RBRACE, "(": _LPAREN, ")": _RPAREN, ".": _DOT, ",": _COMMA,
    "-": _MINUS, "!": _EXCLAM, "?": _QUESTION, ":": _COLON, "+": _PLUS, "*": _STAR, "/": _SLASH, "%": _PERCENT,
}  # fmt: skip
_KEYWORDS = {"in": _IN, "true": _TRUE, "false": _FALSE, "null": _NULL}
_NUM_FLOAT, _NUM_INT, _NUM_UINT, _STRING, _BYTES, _IDENTIFIER, _ESC_IDENTIFIER = range(31, 38)
_TOKEN_NAMES = {
    _EOF: "<EOF>",
    **{kind: f"'{text}'" for text, kind in (*_PUNCTUATION.items(), *_KEYWORDS.items())},
    _NUM_FLOAT: "NUM_FLOAT", _NUM_INT: "NUM_INT", _NUM_UINT: "NUM_UINT", _STRING: "STRING", _BYTES: "BYTES",
    _IDENTIFIER: "IDENTIFIER", _ESC_IDENTIFIER: "ESC_IDENTIFIER",
}  # fmt: skip

_NUMBERS = (
    (_NUM_FLOAT, re.compile(r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?")),
    (_NUM_INT, re.compile(r"0x[0-9a-fA-F]+|[0-9]+")),
    (_NUM_UINT, re.compile(r"(?:0x[0-9a-fA-F]+|[0-9]+)[uU]")),
)
_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESC_IDENTIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/ ")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_OCTAL_DIGITS = frozenset("01234567")
_ESCAPE_WIDTHS = {"x": 2, "X": 2, "u": 4, "U": 8}
_SIMPLE_ESCAPES = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    '"': '"', "'": "'", "\\": "\\", "?": "?", "`": "`",
}  # fmt: skip
# cel-go's reserved identifiers, less `in`, `true`, `false` and `null`, which lex as their own tokens.
_RESERVED = frozenset({
    "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package",
    "namespace", "return", "var", "void", "while",
})  # fmt: skip


class _Token(NamedTuple):
    kind: int
    text: str
    start: int
    end: int


def _escape_end(source: str, backslash: int) -> tuple[int | None, int]:
    """(end of the escape sequence, or None; position where the lexer gives up)."""
    at = backslash + 1
    if at >= len(source):
        return None, len(source)
    char = source[at]
    if char in _SIMPLE_ESCAPES:
        return at + 1, at + 1
    if char in "0123":
        width, allowed = 2, _OCTAL_DIGITS
    elif char in "xXuU":
        width, allowed = _ESCAPE_WIDTHS[char], _HEX_DIGITS
    else:
        return None, at
    for position in range(at + 1, at + 1 + width):
        if position >= len(source):
            return None, len(source)
        if source[position] not in allowed:
            return None, position
    return at + 1 + width, at + 1 + width


def _quoted_end(source: str, quote_at: int, raw: bool, triple: bool) -> tuple[int | None, int]:
    """(end of a quoted literal opening at `quote_at`, or None; position where the lexer gives up)."""
    mark = source[quote_at] * (3 if triple else 1)
    position = quote_at + len(mark)
    while position < len(source):
        char = source[position]
        if source.startswith(mark, position):
            return position + len(mark), position
        if not triple and char in "\r\n":
            return None, position
        if char == "\\" and not raw:
            end, stop = _escape_end(source, position)
            if end is None:
                return None, stop
            position = end
        else:
            position += 1
    return None, len(source)


def _string_candidate(source: str, start: int) -> tuple[int, int | None, int]:
    """(STRING or BYTES, end or None, give-up position) for a literal with optional b/r prefixes at `start`."""
    position, kind = start, _STRING
    if source[position : position + 1] in ("b", "B"):
        position, kind = position + 1, _BYTES
    raw = source[position : position + 1] in ("r", "R")
    position += raw
    if source[position : position + 1] not in ("'", '"'):
        return kind, None, start
    best_end, stop = _quoted_end(source, position, raw, triple=False)
    if source.startswith(source[position] * 3, position):
        end, triple_stop = _quoted_end(source, position, raw, triple=True)
        stop = max(stop, triple_stop)
        if end is not None and (best_end is None or end > best_end):
            best_end = end
    return kind, best_end, stop


def _next_token(source: str, start: int) -> tuple[int | None, int]:
    """Longest token at `start` (ties go to the earlier lexer rule), or (None, position where lexing fails)."""
    candidates: list[tuple[int, int]] = []
    stops = [start]
    for text, kind in _PUNCTUATION.items():
        if source.startswith(text, start):
            candidates.append((start + len(text), kind))
    if source[start] in "|&=" and not source.startswith(source[start] * 2, start):
        stops.append(min(start + 1, len(source)))
    for kind, pattern in _NUMBERS:
        if match := pattern.match(source, start):
            candidates.append((match.end(), kind))
    if match := _IDENTIFIER_RE.match(source, start):
        candidates.append((match.end(), _KEYWORDS.get(match.group(), _IDENTIFIER)))
    kind, end, stop = _string_candidate(source, start)
    stops.append(stop)
    if end is not None:
        candidates.append((end, kind))
    if source[start] == "`":
        position = start + 1
        while position < len(source) and source[position] in _ESC_IDENTIFIER_CHARS:
            position += 1
        if position > start + 1 and source[position : position + 1] == "`":
            candidates.append((position + 1, _ESC_IDENTIFIER))
        stops.append(position)
    if not candidates:
        return None, max(stops)
    end, kind = max(candidates, key=lambda candidate: (candidate[0], -candidate[1]))
    return kind, end


def _error_display(text: str) -> str:
    return text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def _tokenize(source: str) -> tuple[list[_Token], list[tuple[int, str]]]:
    """Tokens without whitespace and comments, ending in EOF, and the lexer's (position, message) errors."""
    tokens: list[_Token] = []
    errors: list[tuple[int, str]] = []
    position = 0
    while position < len(source):
        if source[position] in "\t\n\r\f ":
            position += 1
            continue
        if source.startswith("//", position):
            newline = source.find("\n", position)
            position = len(source) if newline < 0 else newline
            continue
        kind, end = _next_token(source, position)
        if kind is None:
            failed = source[position : end + 1]
            errors.append((position, f"Syntax error: token recognition error at: '{_error_display(failed)}'"))
            position = min(end + 1, len(source))
            continue
        tokens.append(_Token(kind, source[position:end], position, end))
        position = end
    tokens.append(_Token(_EOF, "<EOF>", len(source), len(source)))
    return tokens, errors


# --- CEL grammar (cel-go's CEL.g4), recursive descent ----------------------------------------------------------

_MEMBER_START = frozenset(
    {_LBRACKET, _LBRACE, _LPAREN, _DOT, _MINUS, _TRUE, _FALSE, _NULL}
    | {_NUM_FLOAT, _NUM_INT, _NUM_UINT, _STRING, _BYTES, _IDENTIFIER}
)
_EXPR_START = _MEMBER_START | {_EXCLAM}
_BINARY = {
    _OR: (1, "_||_"), _AND: (2, "_&&_"),
    _LT: (3, "_<_"), _LE: (3, "_<=_"), _GE: (3, "_>=_"), _GT: (3, "_>_"), _EQ: (3, "_==_"), _NE: (3, "_!=_"),
    _IN: (3, "@in"), _PLUS: (4, "_+_"), _MINUS: (4, "_-_"), _STAR: (5, "_*_"), _SLASH: (5, "_/_"),
    _PERCENT: (5, "_%_"),
}  # fmt: skip
_RELATION, _ADDITIVE, _MULTIPLICATIVE = 3, 4, 5
# What may follow a complete operand anywhere: postfix operators, binary operators and the ternary.
_CONTINUATION = frozenset({_DOT, _LBRACKET, _QUESTION, *_BINARY})
_IDENT_TOKENS = frozenset({_IDENTIFIER, _ESC_IDENTIFIER})


class _SyntaxFailure(Exception):
    """The parser's first error; lexer errors before `limit` were reported ahead of it by cel-go."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.message = message
        self.limit = limit


def _parse_cel(expression: str) -> _Node:
    size = len(expression)
    if size > _MAX_CODE_POINTS:
        raise ShardSelectorError(
            f"CEL parse error: expression code point size exceeds limit: size: {size}, limit {_MAX_CODE_POINTS}"
        )
    tokens, lexer_errors = _tokenize(expression)
    try:
        root = _Parser(expression, tokens).parse()
    except _SyntaxFailure as failure:
        earlier = [message for position, message in lexer_errors if position < failure.limit]
        raise ShardSelectorError(f"CEL parse error: {(earlier or [failure.message])[0]}") from None
    if lexer_errors:
        raise ShardSelectorError(f"CEL parse error: {lexer_errors[0][1]}")
    _check_tree(root)
    return root


def _expecting(kinds: Iterable[int]) -> str:
    names = [_TOKEN_NAMES[kind] for kind in sorted(kinds)]
    return names[0] if len(names) == 1 else "{" + ", ".join(names) + "}"


def _literal(token: _Token, sign: str = "") -> _Node:
    """A literal node; a malformed value becomes the visitor error cel-go reports for it."""
    text, problem, value, go_type = token.text, None, None, ""
    if token.kind == _NUM_INT:
        go_type = "int64"
        value = int(sign + text[2:], 16) if text.startswith("0x") else int(sign + text)
        problem = None if -(1 << 63) <= value < (1 << 63) else "invalid int literal"
    elif token.kind == _NUM_UINT:
        go_type = "uint64"
        value = int(text[2:-1], 16) if text.startswith("0x") else int(text[:-1])
        problem = None if value < HASH_SPACE_END else "invalid uint literal"
    elif token.kind == _NUM_FLOAT:
        go_type, value = "float64", float(sign + text)
        problem = None if abs(value) != float("inf") else "invalid double literal"
    elif token.kind in (_STRING, _BYTES):
        is_bytes = token.kind == _BYTES
        go_type = "[]uint8" if is_bytes else "string"
        value, problem = _unescape(text[1:] if is_bytes else text, is_bytes)
    else:
        go_type = {_TRUE: "bool", _FALSE: "bool", _NULL: "structpb.NullValue"}[token.kind]
        value = {_TRUE: True, _FALSE: False, _NULL: None}[token.kind]
    return _Node(_LITERAL, visit=[problem] if problem else [], value=value, go_type=go_type)


def _unescape(text: str, is_bytes: bool) -> tuple[str, str | None]:
    """A lexed string literal's value and cel-go's unescape error, if any."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw = text[0] in "rR"
    text = text[raw:]
    body = text[3:-3] if text[:3] in ("'''", '"""') else text[1:-1]
    if raw or "\\" not in body:
        return body, None
    out, position = [], 0
    while position < len(body):
        char = body[position]
        if char != "\\":
            out.append(char)
            position += 1
            continue
        code = body[position + 1]
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
            position += 2
            continue
        if code in "uU" and is_bytes:
            return "", "unable to unescape string"
        if code in "0123":
            value, position = int(body[position + 1 : position + 4], 8), position + 4
        else:
            width = _ESCAPE_WIDTHS[code]
            value = int(body[position + 2 : position + 2 + width], 16)
            position += 2 + width
        if not is_bytes and (value > 0x10FFFF or 0xD800 <= value <= 0xDFFF):
            return "", "invalid unicode code point"
        out.append(chr(value))
    return "".join(out), None


class _Parser:
    """cel-go's grammar over the token list, stopping at the first syntax error as cel-go would report it.

    Rule nesting is counted the way cel-go's parse listener counts it (left-recursive rules add one level
    per operator), so over-deep input fails with the same message at the same point.
    """

    def __init__(self, source: str, tokens: list[_Token]) -> None:
        self.source = source
        self.tokens = tokens
        self.position = 0
        self.depth = {"expr": 0, "member": 0, "relation": 0, "calc": 0}

    # token access and error reporting

    def _peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.position + ahead, len(self.tokens) - 1)]

    def _kind(self, ahead: int = 0) -> int:
        return self._peek(ahead).kind

    def _advance(self) -> _Token:
        token = self._peek()
        self.position = min(self.position + 1, len(self.tokens) - 1)
        return token

    def _set_depth(self, rule: str, value: int) -> None:
        self.depth[rule] = value
        if value > _MAX_DEPTH:
            raise _SyntaxFailure(f"expression recursion limit exceeded: {_MAX_DEPTH}", self._peek().start + 1)

    def _display(self, token: _Token) -> str:
        return f"'{_error_display(token.text)}'"

    def _fail(self, message: str, consulted: _Token) -> _SyntaxFailure:
        return _SyntaxFailure(f"Syntax error: {message}", consulted.start + 1)

    def _sync(self, expected: frozenset[int]) -> None:
        """Entry into an alternative block: the current token must be able to start it."""
        if self._kind() in expected:
            return
        verb = "extraneous" if self._kind(1) in expected else "mismatched"
        raise self._fail(f"{verb} input {self._display(self._peek())} expecting {_expecting(expected)}", self._peek(1))

    def _match(self, kind: int, follow: frozenset[int]) -> _Token:
        """A required token; `follow` is what may come after it (for ANTLR's missing-token report)."""
        if self._kind() == kind:
            return self._advance()
        token, name = self._peek(), _expecting([kind])
        if self._kind(1) == kind:
            raise self._fail(f"extraneous input {self._display(token)} expecting {name}", self._peek(1))
        if token.kind in follow:
            raise self._fail(f"missing {name} at {self._display(token)}", self._peek(1))
        raise self._fail(f"mismatched input {self._display(token)} expecting {name}", self._peek(1))

    def _no_viable(self, first: _Token, offending: _Token) -> _SyntaxFailure:
        text = _error_display(self.source[first.start : offending.end])
        return self._fail(f"no viable alternative at input '{text}'", offending)

    # rules

    def parse(self) -> _Node:
        node = self._expr(frozenset({_EOF}))
        if self._kind() != _EOF:
            token = self._peek()
            verb = "extraneous" if self._kind(1) == _EOF else "mismatched"
            raise self._fail(f"{verb} input {self._display(token)} expecting <EOF>", self._peek(1))
        return node

    def _expr(self, stop: frozenset[int]) -> _Node:
        """expr: conditionalOr ('?' conditionalOr ':' expr)?"""
        saved = self.depth["expr"]
        self._set_depth("expr", saved + 1)
        node = self._binary(stop)
        if self._kind() == _QUESTION:
            self._advance()
            if_true = self._binary(frozenset({_COLON}))
            self._match(_COLON, _EXPR_START)
            if_false = self._expr(stop)
            node = _Node(_CALL, "_?_:_", [node, if_true, if_false], counted=True)
        self.depth["expr"] = saved
        return node

    def _binary(self, stop: frozenset[int]) -> _Node:
        """conditionalOr down to calc, as one operator-precedence loop."""
        base_relation, base_calc = self.depth["relation"], self.depth["calc"]
        follow = _CONTINUATION | stop
        operands: list[_Node] = []
        operators: list[tuple[int, str]] = []
        flat: set[int] = set()
        relation_ops = outer_calc_ops = additive_rhs_ops = 0
        in_additive_rhs = last_multiplicative = False

        def reduce(floor: int) -> None:
            while operators and operators[-1][0] >= floor:
                precedence, name = operators.pop()
                right, left = operands.pop(), operands.pop()
                if precedence <= 2 and left.name == name and id(left) in flat:
                    left.args.append(right)
                    left.visit.append(right)
                    operands.append(left)
                    continue
                node = _Node(_CALL, name, [left, right], counted=precedence >= _RELATION)
                if precedence <= 2:
                    flat.add(id(node))
                operands.append(node)

        while True:
            relation_depth = 1 + relation_ops + (1 if relation_ops else 0)
            calc_depth = 1 + outer_calc_ops + (1 + additive_rhs_ops if in_additive_rhs else 0)
            self._set_depth("relation", base_relation + relation_depth)
            self._set_depth("calc", base_calc + calc_depth + (1 if last_multiplicative else 0))
            operands.append(self._operand(follow))
            entry = _BINARY.get(self._kind())
            if entry is None:
                break
            self._advance()
            precedence = entry[0]
            reduce(precedence)
            operators.append(entry)
            last_multiplicative = precedence == _MULTIPLICATIVE
            if precedence < _RELATION:
                relation_ops = outer_calc_ops = additive_rhs_ops = 0
                in_additive_rhs = False
            elif precedence == _RELATION:
                relation_ops += 1
                outer_calc_ops = additive_rhs_ops = 0
                in_additive_rhs = False
            elif precedence == _ADDITIVE:
                outer_calc_ops += 1
                in_additive_rhs, additive_rhs_ops = True, 0
            elif in_additive_rhs:
                additive_rhs_ops += 1
            else:
                outer_calc_ops += 1
        reduce(0)
        self.depth["relation"], self.depth["calc"] = base_relation, base_calc
        return operands[0]

    def _operand(self, follow: frozenset[int]) -> _Node:
        """unary and member: prefix operators, a primary, then .field, .call(...) and [index] suffixes.

        One method (with parenthesised expressions handled inline) keeps each nesting level to three
        Python frames, so cel-go's nesting limit is reached before Python's recursion limit.
        """
        kind, negations = self._kind(), ""
        if kind == _EXCLAM:
            while self._kind() == _EXCLAM:
                negations += self._advance().text
            if self._kind() not in _MEMBER_START:
                token = self._peek()
                raise self._fail(f"extraneous input {self._display(token)} expecting {_expecting(_EXPR_START)}", token)
        elif kind == _MINUS and self._kind(1) not in (_NUM_INT, _NUM_FLOAT):
            last = self._peek()
            while self._kind() == _MINUS:
                last = self._advance()
                negations += last.text
            if self._kind() not in _MEMBER_START:
                raise self._no_viable(last, self._peek())
        else:
            self._sync(_EXPR_START)
        saved = self.depth["member"]
        self._set_depth("member", saved + 1)
        if self._kind() == _LPAREN:
            self._advance()
            node = self._expr(frozenset({_RPAREN}))
            self._match(_RPAREN, follow)
        else:
            node = self._primary(follow)
        while self._kind() in (_DOT, _LBRACKET):
            self._set_depth("member", self.depth["member"] + 1)
            node = self._suffix(node, follow)
        self.depth["member"] = saved
        if len(negations) % 2:
            node = _Node(_CALL, "!_" if negations[0] == "!" else "-_", [node])
        return node

    def _suffix(self, node: _Node, follow: frozenset[int]) -> _Node:
        opener = self._advance()
        if opener.kind == _LBRACKET:
            self._sync(_EXPR_START | {_QUESTION})
            optional = self._kind() == _QUESTION and self._advance()
            index = self._expr(frozenset({_RBRACKET}))
            self._match(_RBRACKET, follow)
            visit: list[_Node | str] = [node, index, *(["unsupported syntax '[?'"] if optional else [])]
            return _Node(_CALL, "_[_]", [node, index], visit=visit, counted=True)
        if self._kind() == _QUESTION:
            self._advance()
            name = self._escape_ident()
            return _Node(_SELECT, name, [node], visit=[node, "unsupported syntax '.?'"], counted=True)
        if self._kind() == _IDENTIFIER and self._kind(1) == _LPAREN:
            name = self._advance().text
            self._advance()
            args = self._call_args(follow)
            return _Node(_CALL, name, args, visit=[node, *args], counted=True)
        if self._kind() in _IDENT_TOKENS:
            return _Node(_SELECT, self._escape_ident(), [node], counted=True)
        raise self._no_viable(opener, self._peek())

    def _escape_ident(self) -> str:
        self._sync(_IDENT_TOKENS)
        token = self._advance()
        return token.text[1:-1] if token.kind == _ESC_IDENTIFIER else token.text

    def _call_args(self, follow: frozenset[int]) -> list[_Node]:
        """exprList? ')' after an opening parenthesis."""
        args: list[_Node] = []
        if self._kind() != _RPAREN:
            self._sync(_EXPR_START | {_RPAREN})
            args.append(self._expr(frozenset({_COMMA, _RPAREN})))
            while self._kind() == _COMMA:
                self._advance()
                args.append(self._expr(frozenset({_COMMA, _RPAREN})))
        self._match(_RPAREN, follow)
        return args

    def _primary(self, follow: frozenset[int]) -> _Node:
        token = self._peek()
        if token.kind in (_DOT, _IDENTIFIER):
            return self._named(follow)
        if token.kind == _LBRACKET:
            return self._list(follow)
        if token.kind == _LBRACE:
            return self._map(follow)
        if token.kind == _MINUS:
            if self._kind(1) not in (_NUM_INT, _NUM_FLOAT):
                raise self._no_viable(token, self._peek(1))
            self._advance()
            return _literal(self._advance(), "-")
        return _literal(self._advance())

    def _named(self, follow: frozenset[int]) -> _Node:
        """An identifier, a global call, or a message literal `a.b.C{...}`, each with an optional leading dot."""
        lead = ""
        if self._kind() == _DOT:
            if self._kind(1) != _IDENTIFIER:
                raise self._no_viable(self._peek(), self._peek(1))
            self._advance()
            lead = "."
        name = self._peek().text
        reserved = [f"reserved identifier: {name}"] if name in _RESERVED else []
        if self._kind(1) == _LPAREN:
            self._advance()
            self._advance()
            args = self._call_args(follow)
            return _Node(_CALL, lead + name, args, visit=reserved or list(args))
        ahead = 1
        while self._kind(ahead) == _DOT and self._kind(ahead + 1) == _IDENTIFIER:
            ahead += 2
        if self._kind(ahead) != _LBRACE:
            self._advance()
            return _Node(_IDENT, lead + name, visit=reserved)
        parts = [self._advance().text for _ in range(ahead)]
        return self._message(lead + "".join(parts), follow)

    def _message(self, name: str, follow: frozenset[int]) -> _Node:
        self._advance()
        field_start = frozenset({_QUESTION, *_IDENT_TOKENS})
        self._sync(field_start | {_RBRACE, _COMMA})
        visit: list[_Node | str] = []
        if self._kind() in field_start:
            while True:
                optional = self._kind() == _QUESTION and self._advance()
                self._escape_ident()
                self._match(_COLON, _EXPR_START)
                value = self._expr(frozenset({_COMMA, _RBRACE}))
                visit.append("unsupported syntax '?'" if optional else value)
                if not (self._kind() == _COMMA and self._kind(1) in field_start):
                    break
                self._advance()
        self._close(_RBRACE, follow)
        return _Node(_STRUCT, name, visit=visit)

    def _list(self, follow: frozenset[int]) -> _Node:
        self._advance()
        element_start = _EXPR_START | {_QUESTION}
        self._sync(element_start | {_RBRACKET, _COMMA})
        visit: list[_Node | str] = []
        if self._kind() in element_start:
            while True:
                optional = self._kind() == _QUESTION and self._advance()
                visit.append(self._expr(frozenset({_COMMA, _RBRACKET})))
                if optional:
                    visit.append("unsupported syntax '?'")
                if not (self._kind() == _COMMA and self._kind(1) in element_start):
                    break
                self._advance()
        self._close(_RBRACKET, follow)
        return _Node(_LIST, visit=visit)

    def _map(self, follow: frozenset[int]) -> _Node:
        self._advance()
        key_start = _EXPR_START | {_QUESTION}
        self._sync(key_start | {_RBRACE, _COMMA})
        visit: list[_Node | str] = []
        if self._kind() in key_start:
            while True:
                optional = self._kind() == _QUESTION and self._advance()
                key = self._expr(frozenset({_COLON}))
                self._match(_COLON, _EXPR_START)
                value = self._expr(frozenset({_COMMA, _RBRACE}))
                visit.extend(["unsupported syntax '?'"] if optional else [key, value])
                if not (self._kind() == _COMMA and self._kind(1) in key_start):
                    break
                self._advance()
        self._close(_RBRACE, follow)
        return _Node(_MAP, visit=visit)

    def _close(self, closer: int, follow: frozenset[int]) -> None:
        """`','? closer` ending a list, map or message literal."""
        self._sync(frozenset({closer, _COMMA}))
        if self._kind() == _COMMA:
            self._advance()
        self._match(closer, follow)
