"""Go text/template as kubectl runs it for `-o go-template=...` (template name `output`).

No maintained Python library implements Go's text/template (Jinja-style engines differ in syntax,
truth, printing and errors), so the lexer, parser and evaluator are written here by hand from the
observable behaviour of Go's package: the same grammar, the same value printing (through
`svc.machinery.gotext`), the same error texts with `template: output:LINE:COL: executing "output" at <...>`.

kubectl specifics reproduced: the data is the object after a JSON round trip (integral numbers
become int64, others float64); functions `exists` and `base64decode` are added; missing map keys
print `<no value>` when allowed and fail with `map has no entry for key` otherwise; on failure the
text rendered so far plus a debugging block go to standard output (`TemplateError.output`).

Not supported: `define`, `template` and `block` (one template only) and complex-number constants;
they fail at parse time with a clear message.
"""

from __future__ import annotations

import base64
import binascii
import unicodedata
import urllib.parse
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from svc.cli.printers.errors import TemplateError
from svc.machinery import gotext

__all__ = ["GoTemplate", "TemplateError", "parse_go_template"]

_NAME = "output"
_SPACES = " \t\r\n"
_EOF = ""

# --- lexer -----------------------------------------------------------------------------------

_KEYWORDS = {
    "block", "break", "continue", "define", "else", "end", "if", "nil", "range", "template", "with",
}  # fmt: skip


@dataclass
class _Token:
    kind: str  # "error", "text", "{{", "}}", "(", ")", "|", "=", ":=", "char", "space", "bool", "number",
    # "charconst", "complex", "string", "rawstring", "field", "variable", "identifier", "." or a keyword
    pos: int
    value: str
    line: int

    def __str__(self) -> str:
        if self.kind == "eof":
            return "EOF"
        if self.kind == "error":
            return self.value
        if self.kind in _KEYWORDS or self.kind == ".":
            return f"<{self.value}>"
        if len(self.value) > 10:
            return gotext.quote(self.value[:10]) + "..."
        return gotext.quote(self.value)


def _is_alphanumeric(char: str) -> bool:
    if char == _EOF:
        return False
    category = unicodedata.category(char)
    return char == "_" or category[0] == "L" or category == "Nd"


def _rune_name(char: str) -> str:
    text = f"U+{ord(char):04X}"
    return f"{text} '{char}'" if gotext.is_print(char) else text


class _Lexer:
    """Splits template text into tokens; a lexical error ends the stream with an "error" token."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.start = 0
        self.line = 1
        self.start_line = 1
        self.paren_depth = 0
        self.tokens: list[_Token] = []

    def run(self) -> list[_Token]:
        state: Any = self._text
        while state is not None:
            state = state()
        return self.tokens

    def _emit(self, kind: str) -> None:
        self.tokens.append(_Token(kind, self.start, self.text[self.start : self.pos], self.start_line))
        self.start = self.pos
        self.start_line = self.line

    def _ignore(self) -> None:
        self.line += self.text.count("\n", self.start, self.pos)
        self.start = self.pos
        self.start_line = self.line

    def _error(self, message: str) -> None:
        self.tokens.append(_Token("error", self.start, message, self.start_line))

    def _next(self) -> str:
        if self.pos >= len(self.text):
            self.pos = len(self.text) + 1
            return _EOF
        char = self.text[self.pos]
        self.pos += 1
        if char == "\n":
            self.line += 1
        return char

    def _backup(self) -> None:
        if self.pos > len(self.text):
            self.pos = len(self.text)
            return
        self.pos -= 1
        if self.text[self.pos] == "\n":
            self.line -= 1

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else _EOF

    def _accept(self, valid: str) -> bool:
        if self._peek() != _EOF and self._peek() in valid:
            self._next()
            return True
        return False

    def _accept_run(self, valid: str) -> None:
        while self._accept(valid):
            pass

    def _at_right_delim(self) -> tuple[bool, bool]:
        rest = self.text[self.pos :]
        if len(rest) >= 2 and rest[0] in _SPACES and rest[1] == "-" and rest[2:].startswith("}}"):
            return True, True
        return rest.startswith("}}"), False

    def _at_terminator(self) -> bool:
        char = self._peek()
        return char == _EOF or char in _SPACES or char in ".,|:)(" or self.text.startswith("}}", self.pos)

    def _text(self) -> Any:
        found = self.text.find("{{", self.pos)
        if found < 0:
            self.pos = len(self.text)
            if self.pos > self.start:
                self.line += self.text.count("\n", self.start, self.pos)
                self._emit("text")
            self._emit("eof")
            return None
        self.pos = found
        after = self.text[found + 2 : found + 4]
        trim = len(self.text[self.start : found]) - len(self.text[self.start : found].rstrip(_SPACES))
        if not (len(after) == 2 and after[0] == "-" and after[1] in _SPACES):
            trim = 0
        self.pos -= trim
        if self.pos > self.start:
            self.line += self.text.count("\n", self.start, self.pos)
            self._emit("text")
        self.pos += trim
        self._ignore()
        return self._left_delim

    def _left_delim(self) -> Any:
        self.pos += 2
        rest = self.text[self.pos : self.pos + 2]
        trim = len(rest) == 2 and rest[0] == "-" and rest[1] in _SPACES
        marker = 2 if trim else 0
        if self.text.startswith("/*", self.pos + marker):
            self.pos += marker
            self._ignore()
            return self._comment
        self._emit("{{")
        self.pos += marker
        self._ignore()
        self.paren_depth = 0
        return self._inside_action

    def _comment(self) -> Any:
        self.pos += 2
        end = self.text.find("*/", self.pos)
        if end < 0:
            self._error("unclosed comment")
            return None
        self.pos = end + 2
        delim, trim = self._at_right_delim()
        if not delim:
            self._error("comment ends before closing delimiter")
            return None
        self.pos += (2 if trim else 0) + 2
        if trim:
            self.pos = len(self.text) - len(self.text[self.pos :].lstrip(_SPACES))
        self._ignore()
        return self._text

    def _right_delim(self) -> Any:
        _, trim = self._at_right_delim()
        if trim:
            self.pos += 2
            self._ignore()
        self.pos += 2
        self._emit("}}")
        if trim:
            self.pos = len(self.text) - len(self.text[self.pos :].lstrip(_SPACES))
            self._ignore()
        return self._text

    def _inside_action(self) -> Any:
        delim, _ = self._at_right_delim()
        if delim:
            if self.paren_depth == 0:
                return self._right_delim
            self._error("unclosed left paren")
            return None
        char = self._next()
        if char == _EOF:
            self._error("unclosed action")
            return None
        if char in _SPACES:
            self._backup()
            return self._space
        simple = {"=": "=", "|": "|"}
        if char in simple:
            self._emit(simple[char])
        elif char == ":":
            if self._next() != "=":
                self._error("expected :=")
                return None
            self._emit(":=")
        elif char == '"':
            return self._quote
        elif char == "`":
            return self._raw_quote
        elif char == "$":
            return self._variable
        elif char == "'":
            return self._char
        elif char == "." and not ("0" <= self._peek() <= "9" and self._peek() != _EOF):
            return self._field
        elif char in "+-." or "0" <= char <= "9":
            self._backup()
            return self._number
        elif _is_alphanumeric(char):
            self._backup()
            return self._identifier
        elif char == "(":
            self._emit("(")
            self.paren_depth += 1
        elif char == ")":
            self._emit(")")
            self.paren_depth -= 1
            if self.paren_depth < 0:
                self._error(f"unexpected right paren {_rune_name(char)}")
                return None
        elif ord(char) < 0x80 and gotext.is_print(char):
            self._emit("char")
        else:
            self._error(f"unrecognized character in action: {_rune_name(char)}")
            return None
        return self._inside_action

    def _space(self) -> Any:
        count = 0
        while self._peek() != _EOF and self._peek() in _SPACES:
            self._next()
            count += 1
        if self.text[self.pos - 1 : self.pos + 1].endswith("-") and self.text.startswith("}}", self.pos + 1):
            self._backup()
            if count == 1:
                return self._right_delim
        self._emit("space")
        return self._inside_action

    def _identifier(self) -> Any:
        while _is_alphanumeric(self._peek()):
            self._next()
        word = self.text[self.start : self.pos]
        if not self._at_terminator():
            self._error(f"bad character {_rune_name(self._peek())}")
            return None
        if word in _KEYWORDS:
            self._emit(word)
        elif word in ("true", "false"):
            self._emit("bool")
        else:
            self._emit("identifier")
        return self._inside_action

    def _field(self) -> Any:
        return self._field_or_variable("field")

    def _variable(self) -> Any:
        return self._field_or_variable("variable")

    def _field_or_variable(self, kind: str) -> Any:
        if self._at_terminator():
            self._emit("variable" if kind == "variable" else ".")
            return self._inside_action
        while _is_alphanumeric(self._peek()):
            self._next()
        if not self._at_terminator():
            self._error(f"bad character {_rune_name(self._peek())}")
            return None
        self._emit(kind)
        return self._inside_action

    def _scan_quoted(self, closing: str, message: str) -> bool:
        while True:
            char = self._next()
            if char == "\\":
                char = self._next()
                if char not in (_EOF, "\n"):
                    continue
            if char in (_EOF, "\n"):
                self._error(message)
                return False
            if char == closing:
                return True

    def _char(self) -> Any:
        if not self._scan_quoted("'", "unterminated character constant"):
            return None
        self._emit("charconst")
        return self._inside_action

    def _quote(self) -> Any:
        if not self._scan_quoted('"', "unterminated quoted string"):
            return None
        self._emit("string")
        return self._inside_action

    def _raw_quote(self) -> Any:
        end = self.text.find("`", self.pos)
        if end < 0:
            self._error("unterminated raw quoted string")
            return None
        self.line += self.text.count("\n", self.pos, end + 1)
        self.pos = end + 1
        self._emit("rawstring")
        return self._inside_action

    def _scan_number(self) -> bool:
        self._accept("+-")
        digits = "0123456789_"
        if self._accept("0"):
            if self._accept("xX"):
                digits = "0123456789abcdefABCDEF_"
            elif self._accept("oO"):
                digits = "01234567_"
            elif self._accept("bB"):
                digits = "01_"
        self._accept_run(digits)
        if self._accept("."):
            self._accept_run(digits)
        if len(digits) == 11 and self._accept("eE"):
            self._accept("+-")
            self._accept_run("0123456789_")
        if len(digits) == 23 and self._accept("pP"):
            self._accept("+-")
            self._accept_run("0123456789_")
        self._accept("i")
        if _is_alphanumeric(self._peek()):
            self._next()
            return False
        return True

    def _number(self) -> Any:
        if not self._scan_number():
            self._error(f"bad number syntax: {gotext.quote(self.text[self.start : self.pos])}")
            return None
        if self._peek() in ("+", "-"):
            if not self._scan_number() or self.text[self.pos - 1] != "i":
                self._error(f"bad number syntax: {gotext.quote(self.text[self.start : self.pos])}")
                return None
            self._emit("complex")
        else:
            self._emit("number")
        return self._inside_action


# --- syntax tree -----------------------------------------------------------------------------


@dataclass
class _Node(ABC):
    pos: int

    @abstractmethod
    def __str__(self) -> str:
        """The node written back as template text (as Go's parse tree prints it)."""


@dataclass
class _Text(_Node):
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass
class _Dot(_Node):
    def __str__(self) -> str:
        return "."


@dataclass
class _Nil(_Node):
    def __str__(self) -> str:
        return "nil"


@dataclass
class _Bool(_Node):
    value: bool

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass
class _Number(_Node):
    text: str
    value: Any  # GoInt or float; None when the constant only fits an unsigned integer

    def __str__(self) -> str:
        return self.text


@dataclass
class _String(_Node):
    quoted: str
    text: str

    def __str__(self) -> str:
        return self.quoted


@dataclass
class _Field(_Node):
    ident: list[str]

    def __str__(self) -> str:
        return "".join("." + name for name in self.ident)


@dataclass
class _Variable(_Node):
    ident: list[str]

    def __str__(self) -> str:
        return ".".join(self.ident)


@dataclass
class _Identifier(_Node):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass
class _Command(_Node):
    args: list[_Node] = field(default_factory=list)

    def __str__(self) -> str:
        return " ".join(f"({arg})" if isinstance(arg, _Pipe) else str(arg) for arg in self.args)


@dataclass
class _Pipe(_Node):
    decl: list[_Variable] = field(default_factory=list)
    is_assign: bool = False
    cmds: list[_Command] = field(default_factory=list)

    def __str__(self) -> str:
        head = ", ".join(str(v) for v in self.decl) + " := " if self.decl else ""
        return head + " | ".join(str(c) for c in self.cmds)


@dataclass
class _Chain(_Node):
    node: _Node
    fields: list[str]

    def __str__(self) -> str:
        base = f"({self.node})" if isinstance(self.node, _Pipe) else str(self.node)
        return base + "".join("." + name for name in self.fields)


@dataclass
class _List(_Node):
    nodes: list[_Node] = field(default_factory=list)

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


@dataclass
class _Action(_Node):
    pipe: _Pipe

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


@dataclass
class _Branch(_Node):
    keyword: str  # "if", "range" or "with"
    pipe: _Pipe
    body: _List
    otherwise: _List | None

    def __str__(self) -> str:
        tail = "{{else}}" + str(self.otherwise) if self.otherwise is not None else ""
        return "{{" + self.keyword + " " + str(self.pipe) + "}}" + str(self.body) + tail + "{{end}}"


@dataclass
class _Jump(_Node):
    keyword: str  # "break" or "continue"

    def __str__(self) -> str:
        return "{{" + self.keyword + "}}"


@dataclass
class _Delimiter(_Node):
    keyword: str  # "end" or "else" (with the following if/with, if any, left to its parser)

    def __str__(self) -> str:
        return "{{" + self.keyword + "}}"


# --- parser ----------------------------------------------------------------------------------


class _ParseError(Exception):
    pass


_FUNCTIONS = {
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println",
    "urlquery", "eq", "ge", "gt", "le", "lt", "ne", "exists", "base64decode",
}  # fmt: skip
_OPERAND_KINDS = {
    "bool", "charconst", "complex", ".", "field", "identifier", "number", "nil", "rawstring", "string",
    "variable", "(",
}  # fmt: skip


def _unquote(token: _Token) -> str:
    """strconv.Unquote of a string, raw string or character literal."""
    text = token.value
    if text.startswith("`"):
        return text[1:-1].replace("\r", "")
    out: list[str] = []
    body, i = text[1:-1], 0
    quote = text[0]
    simple = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", quote: quote}
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        escape = body[i + 1] if i + 1 < len(body) else ""
        i += 2
        if escape in simple:
            out.append(simple[escape])
            continue
        width = {"x": 2, "u": 4, "U": 8}.get(escape)
        if width:
            digits = body[i : i + width]
            if len(digits) != width or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise _ParseError("invalid syntax")
            out.append(chr(min(int(digits, 16), 0x10FFFF)))
            i += width
        elif escape and escape in "01234567":
            digits = body[i - 1 : i + 2]
            if len(digits) != 3 or any(c not in "01234567" for c in digits) or int(digits, 8) > 255:
                raise _ParseError("invalid syntax")
            out.append(chr(int(digits, 8)))
            i += 2
        else:
            raise _ParseError("invalid syntax")
    return "".join(out)


def _number_value(token: _Token) -> Any:
    """The value Go's parser gives a numeric literal (int when it is one, else float)."""
    text = token.value
    if token.kind == "charconst":
        chars = _unquote(token)
        if len(chars) != 1:
            raise _ParseError(f"malformed character constant: {text}")
        return gotext.GoInt(ord(chars))
    if token.kind == "complex" or text.endswith("i"):
        raise _ParseError(f"complex constants are not supported: {gotext.quote(text)}")
    clean = text.replace("_", "")
    try:
        number = int(clean, 0) if not any(c in clean for c in ".eEpP") or clean[:2].lower() == "0x" else None
    except ValueError:
        number = None
    if number is not None and "p" not in clean.lower():
        if number > 2**63 - 1 or number < -(2**63):
            return None if 0 <= number < 2**64 else _overflow(text)
        return gotext.GoInt(number)
    try:
        value = float.fromhex(clean) if clean[:2].lower() in ("0x", "-0x", "+0x") else float(clean)
    except ValueError:
        raise _ParseError(f"illegal number syntax: {gotext.quote(text)}") from None
    if not any(c in text for c in ".eEpP"):
        return _overflow(text)
    return value


def _overflow(text: str) -> Any:
    raise _ParseError(f"integer overflow: {gotext.quote(text)}")


class _Parser:
    """Recursive descent over the token list, with Go's error texts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _Lexer(text).run()
        self.index = 0
        self.seen = 0
        self.action_line = 0
        self.range_depth = 0
        self.vars = ["$"]

    def _error(self, message: str) -> None:
        line = self.tokens[min(self.seen, len(self.tokens) - 1)].line
        raise _ParseError(f"template: {_NAME}:{line}: {message}")

    def _next(self) -> _Token:
        token = self._peek()
        self.index += 1
        return token

    def _backup(self, count: int = 1) -> None:
        self.index -= count

    def _peek(self) -> _Token:
        self.seen = max(self.seen, self.index)
        return self.tokens[min(self.index, len(self.tokens) - 1)]

    def _next_non_space(self) -> _Token:
        token = self._next()
        while token.kind == "space":
            token = self._next()
        return token

    def _peek_non_space(self) -> _Token:
        start = self.index
        token = self._next_non_space()
        self.index = start
        return token

    def _skip_spaces(self) -> None:
        while self._peek().kind == "space":
            self.index += 1

    def _expect(self, kind: str, context: str) -> _Token:
        token = self._next_non_space()
        if token.kind != kind:
            self._unexpected(token, context)
        return token

    def _unexpected(self, token: _Token, context: str) -> None:
        if token.kind == "error":
            extra = ""
            if self.action_line and self.action_line != token.line:
                extra = f" in action started at {_NAME}:{self.action_line}"
                if token.value.endswith(" action"):
                    extra = extra[len(" in action") :]
            self._error(f"{token}{extra}")
        self._error(f"unexpected {token} in {context}")

    def parse(self) -> _List:
        root = _List(self._peek().pos)
        while self._peek().kind != "eof":
            node = self._text_or_action()
            if isinstance(node, _Delimiter):
                self._error(f"unexpected {node}")
            root.nodes.append(node)
        return root

    def _item_list(self) -> tuple[_List, _Delimiter]:
        nodes = _List(self._peek_non_space().pos)
        while self._peek_non_space().kind != "eof":
            node = self._text_or_action()
            if isinstance(node, _Delimiter):
                return nodes, node
            nodes.nodes.append(node)
        self._error("unexpected EOF")
        raise AssertionError

    def _text_or_action(self) -> _Node:
        token = self._next_non_space()
        if token.kind == "text":
            return _Text(token.pos, token.value)
        if token.kind == "{{":
            self.action_line = token.line
            try:
                return self._action()
            finally:
                self.action_line = 0
        self._unexpected(token, "input")
        raise AssertionError

    def _action(self) -> _Node:
        token = self._next_non_space()
        if token.kind in ("define", "template", "block"):
            self._error(f"{{{{{token.kind}}}}} is not supported: svcctl runs a single template")
        if token.kind in ("break", "continue"):
            return self._jump(token)
        if token.kind == "else":
            return self._else()
        if token.kind == "end":
            self._expect("}}", "end")
            return _Delimiter(token.pos, "end")
        if token.kind in ("if", "range", "with"):
            return self._control(token.kind)
        self._backup()
        start = self._peek_non_space()
        return _Action(start.pos, self._pipeline("command", "}}"))

    def _jump(self, token: _Token) -> _Node:
        following = self._next_non_space()
        if following.kind != "}}":
            self._unexpected(following, "{{" + token.kind + "}}")
        if self.range_depth == 0:
            self._error(f"{{{{{token.kind}}}}} outside {{{{range}}}}")
        return _Jump(token.pos, token.kind)

    def _else(self) -> _Node:
        peek = self._peek_non_space()
        if peek.kind in ("if", "with"):
            return _Delimiter(peek.pos, "else " + peek.kind)
        token = self._expect("}}", "else")
        return _Delimiter(token.pos, "else")

    def _control(self, keyword: str) -> _Node:
        depth = len(self.vars)
        pipe = self._pipeline(keyword, "}}")
        if keyword == "range":
            self.range_depth += 1
        body, delimiter = self._item_list()
        if keyword == "range":
            self.range_depth -= 1
        otherwise: _List | None = None
        if delimiter.keyword.startswith("else"):
            chained = delimiter.keyword.partition(" ")[2]
            if chained and chained == ("if" if keyword == "if" else "with" if keyword == "with" else ""):
                self._next_non_space()
                otherwise = _List(delimiter.pos, [self._control(chained)])
            else:
                if chained:
                    self._expect("}}", "else")
                otherwise, delimiter = self._item_list()
                if delimiter.keyword != "end":
                    self._error(f"expected end; found {delimiter}")
        del self.vars[depth:]
        return _Branch(pipe.pos, keyword, pipe, body, otherwise)

    def _pipeline(self, context: str, end: str) -> _Pipe:
        start = self._peek_non_space()
        pipe = _Pipe(start.pos)
        while True:
            variable = self._peek_non_space()
            if variable.kind != "variable":
                break
            self._next_non_space()
            after_var = self._peek()
            following = self._peek_non_space()
            if following.kind in ("=", ":="):
                pipe.is_assign = following.kind == "="
                self._next_non_space()
                pipe.decl.append(_Variable(variable.pos, [variable.value]))
                self.vars.append(variable.value)
                break
            if following.kind == "char" and following.value == ",":
                self._next_non_space()
                pipe.decl.append(_Variable(variable.pos, [variable.value]))
                self.vars.append(variable.value)
                if context == "range" and len(pipe.decl) < 2:
                    if self._peek_non_space().kind in ("variable", "}}", ")"):
                        continue
                    self._error("range can only initialize variables")
                self._error(f"too many declarations in {context}")
            self._backup(2 if after_var.kind == "space" else 1)
            break
        while True:
            token = self._next_non_space()
            if token.kind == end:
                self._check_pipeline(pipe, context)
                return pipe
            if token.kind in _OPERAND_KINDS:
                self._backup()
                pipe.cmds.append(self._command())
            else:
                self._unexpected(token, context)

    def _check_pipeline(self, pipe: _Pipe, context: str) -> None:
        if not pipe.cmds:
            self._error(f"missing value for {context}")
        for stage, command in enumerate(pipe.cmds[1:], start=2):
            if isinstance(command.args[0], (_Bool, _Dot, _Nil, _Number, _String)):
                self._error(f"non executable command in pipeline stage {stage}")

    def _command(self) -> _Command:
        command = _Command(self._peek_non_space().pos)
        while True:
            self._skip_spaces()
            operand = self._operand()
            if operand is not None:
                command.args.append(operand)
            token = self._next()
            if token.kind == "space":
                continue
            if token.kind in ("}}", ")"):
                self._backup()
            elif token.kind != "|":
                self._unexpected(token, "operand")
            break
        if not command.args:
            self._error("empty command")
        return command

    def _operand(self) -> _Node | None:
        node = self._term()
        if node is None or self._peek().kind != "field":
            return node
        chain = _Chain(self._peek().pos, node, [])
        while self._peek().kind == "field":
            chain.fields.append(self._next().value[1:])
        if isinstance(node, _Field):
            return _Field(chain.pos, node.ident + chain.fields)
        if isinstance(node, _Variable):
            return _Variable(chain.pos, node.ident + chain.fields)
        if isinstance(node, (_Bool, _String, _Number, _Nil, _Dot)):
            self._error(f"unexpected . after term {gotext.quote(str(node))}")
        return chain

    def _term(self) -> _Node | None:
        token = self._next_non_space()
        kind = token.kind
        if kind == "identifier":
            if token.value not in _FUNCTIONS:
                self._error(f"function {gotext.quote(token.value)} not defined")
            return _Identifier(token.pos, token.value)
        if kind == ".":
            return _Dot(token.pos)
        if kind == "nil":
            return _Nil(token.pos)
        if kind == "variable":
            name = token.value.split(".")[0]
            if name not in self.vars:
                self._error(f"undefined variable {gotext.quote(name)}")
            return _Variable(token.pos, [token.value])
        if kind == "field":
            return _Field(token.pos, [token.value[1:]])
        if kind == "bool":
            return _Bool(token.pos, token.value == "true")
        if kind in ("charconst", "complex", "number"):
            try:
                return _Number(token.pos, token.value, _number_value(token))
            except _ParseError as error:
                self._error(str(error))
        if kind == "(":
            return self._pipeline("parenthesized pipeline", ")")
        if kind in ("string", "rawstring"):
            try:
                return _String(token.pos, token.value, _unquote(token))
            except _ParseError as error:
                self._error(str(error))
        self._backup()
        return None


# --- values ----------------------------------------------------------------------------------


class _Invalid:
    """Go's zero reflect.Value: a missing key, an untyped nil."""

    def __repr__(self) -> str:
        return "<invalid>"


_INVALID = _Invalid()
_NO_FINAL = object()  # no value piped in from a previous command


@dataclass(frozen=True)
class _Iface:
    """A value held in an interface{} slot (map entry, slice element); `value` None is a nil interface."""

    value: Any


def _indirect(value: Any) -> tuple[Any, bool]:
    if isinstance(value, _Iface):
        return (value, True) if value.value is None else (value.value, False)
    return value, False


def _concrete(value: Any) -> Any:
    """Go's indirectInterface: the value inside an interface, invalid for a nil one."""
    if isinstance(value, _Iface):
        return _INVALID if value.value is None else value.value
    return value


def _type_name(value: Any) -> str:
    return "interface {}" if isinstance(value, _Iface) else gotext.type_name(value)


def _as_interface(value: Any) -> Any:
    """What a Go function declared with `any` parameters receives (None for nil)."""
    value = _concrete(value)
    return None if value is _INVALID else value


def _truth(value: Any) -> bool:
    value = _concrete(value)
    if value is _INVALID or value is None:
        return False
    if isinstance(value, (dict, list, str)):
        return len(value) > 0
    return bool(value)


def _from_json(value: Any) -> Any:
    """The value after kubectl's JSON round trip: numbers Go encodes as integers decode as int64."""
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, float) and not isinstance(value, bool):
        text = gotext.json_float(value)
        if text.lstrip("-").isdigit() and -(2**63) <= int(text) < 2**63:
            return int(text)
    return value


class _ExecError(Exception):
    pass


class _CallError(Exception):
    """A builtin function failed; reported as `error calling NAME: ...`."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


# --- builtin functions -----------------------------------------------------------------------

_BASIC_KINDS = ("bool", "int", "uint", "float", "string")


def _eq(first: Any, *others: Any) -> bool:
    first = _concrete(first)
    if not others:
        raise _CallError("missing argument for comparison")
    kind1 = gotext.basic_kind(first)
    for other in others:
        other = _concrete(other)
        kind2 = gotext.basic_kind(other)
        if kind1 != kind2:
            if {kind1, kind2} == {"int", "uint"}:
                if first == other:
                    return True
                continue
            if first is not _INVALID and other is not _INVALID:
                raise _CallError("incompatible types for comparison")
            continue
        if kind1 in _BASIC_KINDS:
            if first == other:
                return True
            continue
        if first is _INVALID or other is _INVALID:
            if first is other:
                return True
            continue
        raise _CallError(f"non-comparable type {gotext.format_value(other, 's', gotext.Spec())}: {_type_name(other)}")
    return False


def _lt(first: Any, second: Any) -> bool:
    first, second = _concrete(first), _concrete(second)
    kind1, kind2 = gotext.basic_kind(first), gotext.basic_kind(second)
    if "invalid" in (kind1, kind2):
        raise _CallError("invalid type for comparison")
    if kind1 != kind2:
        if {kind1, kind2} == {"int", "uint"}:
            return bool(first < second)
        raise _CallError("incompatible types for comparison")
    if kind1 == "bool":
        raise _CallError("invalid type for comparison")
    return bool(first < second)


def _le(first: Any, second: Any) -> bool:
    return _lt(first, second) or _eq(first, second)


def _index_arg(index: Any, cap: int) -> int:
    index = _concrete(index)
    if index is _INVALID:
        raise _CallError("cannot index slice/array with nil")
    if isinstance(index, bool) or not isinstance(index, int):
        raise _CallError(f"cannot index slice/array with type {_type_name(index)}")
    if index < 0 or index > cap:
        raise _CallError(f"index out of range: {index}")
    return int(index)


def _index(item: Any, *indexes: Any) -> Any:
    item = _concrete(item)
    if item is _INVALID:
        raise _CallError("index of untyped nil")
    for index in indexes:
        index = _concrete(index)
        item, is_nil = _indirect(item)
        if is_nil:
            raise _CallError("index of nil pointer")
        if isinstance(item, (list, str)):
            position = _index_arg(index, len(item.encode() if isinstance(item, str) else item))
            if isinstance(item, str):
                data = item.encode()
                if position >= len(data):
                    raise _CallError("reflect: string index out of range")
                item = gotext.GoByte(data[position])
            else:
                if position >= len(item):
                    raise _CallError("reflect: slice index out of range")
                item = _Iface(item[position])
        elif isinstance(item, dict):
            key = "" if index is _INVALID else index
            if not isinstance(key, str):
                raise _CallError(f"value has type {_type_name(key)}; should be string")
            item = _Iface(item.get(key))
        else:
            raise _CallError(f"can't index item of type {_type_name(item)}")
    return item


def _slice(item: Any, *indexes: Any) -> Any:
    item = _concrete(item)
    if item is _INVALID:
        raise _CallError("slice of untyped nil")
    if len(indexes) > 3:
        raise _CallError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise _CallError("cannot 3-index slice a string")
        size = len(item.encode())
    elif isinstance(item, list):
        size = len(item)
    else:
        raise _CallError(f"can't slice item of type {_type_name(item)}")
    bounds = [0, size, size]
    for position, index in enumerate(indexes):
        bounds[position] = _index_arg(index, size)
    if bounds[0] > bounds[1]:
        raise _CallError(f"invalid slice index: {bounds[0]} > {bounds[1]}")
    if len(indexes) == 3 and bounds[1] > bounds[2]:
        raise _CallError(f"invalid slice index: {bounds[1]} > {bounds[2]}")
    if isinstance(item, str):
        return item.encode()[bounds[0] : bounds[1]].decode(errors="replace")
    return item[bounds[0] : bounds[1]]


def _len(item: Any) -> gotext.GoInt:
    item, is_nil = _indirect(item)
    if is_nil:
        raise _CallError("len of nil pointer")
    if item is _INVALID:
        raise _CallError("reflect: call of reflect.Value.Type on zero Value")
    if isinstance(item, str):
        return gotext.GoInt(len(item.encode()))
    if isinstance(item, (list, dict)):
        return gotext.GoInt(len(item))
    raise _CallError(f"len of type {_type_name(item)}")


def _call(function: Any, *_args: Any) -> Any:
    function = _concrete(function)
    if function is _INVALID:
        raise _CallError("call of nil")
    raise _CallError(f"non-function of type {_type_name(function)}")


def _text_of_args(args: tuple[Any, ...]) -> str:
    """text/template's evalArgs: a lone string as is, else fmt.Sprint with `<no value>` for nil."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    return gotext.sprint(["<no value>" if arg is None else arg for arg in args])


def _html(*args: Any) -> str:
    text = _text_of_args(args)
    table = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
    return "".join(table.get(c, c) for c in text)


def _js(*args: Any) -> str:
    out: list[str] = []
    table = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D"}
    for char in _text_of_args(args):
        if char in table:
            out.append(table[char])
        elif ord(char) < 0x20:
            out.append(f"\\u00{ord(char):02X}")
        elif ord(char) < 0x80 or gotext.is_print(char):
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04X}")
    return "".join(out)


def _urlquery(*args: Any) -> str:
    return urllib.parse.quote_plus(_text_of_args(args), safe="")


def _exists(item: Any, *indexes: Any) -> bool:
    """kubectl's `exists`: whether `index` would find a non-nil value."""
    if item is None:
        return not indexes
    current = _Iface(item)
    for index in indexes:
        value, is_nil = _indirect(current)
        if is_nil:
            return False
        if isinstance(value, (list, str)):
            if isinstance(index, bool) or not isinstance(index, int):
                return False
            items = value.encode() if isinstance(value, str) else value
            if not 0 <= index < len(items):
                return False
            current = _Iface(items[index])
        elif isinstance(value, dict):
            key = "" if index is None else index
            if not isinstance(key, str):
                return False
            current = _Iface(value.get(key))
        else:
            return False
    return not _indirect(current)[1]


def _base64decode(text: str) -> str:
    cleaned = text.replace("\r", "").replace("\n", "")
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    bad = next((i for i, c in enumerate(cleaned) if c not in alphabet), None)
    try:
        if bad is not None:
            raise binascii.Error
        data = base64.b64decode(cleaned, validate=True)
    except binascii.Error:
        offset = bad if bad is not None else len(cleaned.rstrip("=")) // 4 * 4
        raise _CallError(f"base64 decode failed: illegal base64 data at input byte {offset}") from None
    return data.decode(errors="replace")


@dataclass(frozen=True)
class _Function:
    """A builtin's Go signature: parameter kinds ("value" reflect.Value, "any", "string")."""

    run: Any
    params: tuple[str, ...]
    variadic: bool = False


_BUILTINS: dict[str, _Function] = {
    "and": _Function(None, ("value", "value"), variadic=True),
    "or": _Function(None, ("value", "value"), variadic=True),
    "not": _Function(lambda v: not _truth(v), ("value",)),
    "call": _Function(_call, ("value", "value"), variadic=True),
    "html": _Function(_html, ("any",), variadic=True),
    "js": _Function(_js, ("any",), variadic=True),
    "urlquery": _Function(_urlquery, ("any",), variadic=True),
    "index": _Function(_index, ("value", "value"), variadic=True),
    "slice": _Function(_slice, ("value", "value"), variadic=True),
    "len": _Function(_len, ("value",)),
    "print": _Function(lambda *a: gotext.sprint(a), ("any",), variadic=True),
    "println": _Function(lambda *a: gotext.sprintln(a), ("any",), variadic=True),
    "printf": _Function(lambda f, *a: gotext.sprintf(f, a), ("string", "any"), variadic=True),
    "eq": _Function(_eq, ("value", "value"), variadic=True),
    "ne": _Function(lambda a, b: not _eq(a, b), ("value", "value")),
    "lt": _Function(_lt, ("value", "value")),
    "le": _Function(_le, ("value", "value")),
    "gt": _Function(lambda a, b: not _le(a, b), ("value", "value")),
    "ge": _Function(lambda a, b: not _lt(a, b), ("value", "value")),
    "exists": _Function(_exists, ("any", "any"), variadic=True),
    "base64decode": _Function(_base64decode, ("string",)),
}


# --- execution -------------------------------------------------------------------------------


class _State:
    """One execution: output so far, the variable stack and the node errors are reported at."""

    def __init__(self, text: str, strict: bool) -> None:
        self.text = text
        self.strict = strict
        self.out: list[str] = []
        self.vars: list[tuple[str, Any]] = []
        self.node: _Node | None = None

    def at(self, node: _Node) -> None:
        self.node = node

    def error(self, message: str) -> None:
        if self.node is None:
            raise _ExecError(f"template: {_NAME}: {message}")
        prefix = self.text[: self.node.pos]
        line = 1 + prefix.count("\n")
        column = len(prefix[prefix.rfind("\n") + 1 :].encode())
        raise _ExecError(f'template: {_NAME}:{line}:{column}: executing "{_NAME}" at <{self.node}>: {message}')

    def var(self, name: str) -> Any:
        for stored, value in reversed(self.vars):
            if stored == name:
                return value
        self.error(f"undefined variable: {name}")
        raise AssertionError

    def set_var(self, name: str, value: Any) -> None:
        for position in range(len(self.vars) - 1, -1, -1):
            if self.vars[position][0] == name:
                self.vars[position] = (name, value)
                return
        self.error(f"undefined variable: {name}")

    # walking

    def walk(self, dot: Any, node: _Node) -> None:
        self.at(node)
        if isinstance(node, _Action):
            value = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.at(node)
                self.out.append("<no value>" if value is _INVALID else gotext.format_v(_as_interface(value)))
        elif isinstance(node, _List):
            for child in node.nodes:
                self.walk(dot, child)
        elif isinstance(node, _Text):
            self.out.append(node.text)
        elif isinstance(node, _Branch):
            if node.keyword == "range":
                self.walk_range(dot, node)
            else:
                self.walk_if_or_with(dot, node)
        elif isinstance(node, _Jump):
            raise _Break if node.keyword == "break" else _Continue

    def walk_if_or_with(self, dot: Any, node: _Branch) -> None:
        mark = len(self.vars)
        try:
            value = self.eval_pipeline(dot, node.pipe)
            if _truth(value):
                self.walk(value if node.keyword == "with" else dot, node.body)
            elif node.otherwise is not None:
                self.walk(dot, node.otherwise)
        finally:
            del self.vars[mark:]

    def walk_range(self, dot: Any, node: _Branch) -> None:
        self.at(node)
        mark = len(self.vars)
        try:
            value, _ = _indirect(self.eval_pipeline(dot, node.pipe))
            inner = len(self.vars)
            if isinstance(value, list):
                pairs = [(gotext.GoInt(i), _Iface(v)) for i, v in enumerate(value)]
            elif isinstance(value, dict):
                pairs = [(k, _Iface(value[k])) for k in sorted(value)]
            elif value is _INVALID:
                pairs = []
            else:
                self.error(f"range can't iterate over {gotext.format_v(_as_interface(value))}")
                raise AssertionError
            try:
                for index, element in pairs:
                    if node.pipe.decl:
                        self.vars[-1] = (self.vars[-1][0], element)
                    if len(node.pipe.decl) > 1:
                        self.vars[-2] = (self.vars[-2][0], index)
                    try:
                        self.walk(element, node.body)
                    except _Continue:
                        pass
                    finally:
                        del self.vars[inner:]
            except _Break:
                return
            if not pairs and node.otherwise is not None:
                self.walk(dot, node.otherwise)
        finally:
            del self.vars[mark:]

    # evaluation

    def eval_pipeline(self, dot: Any, pipe: _Pipe) -> Any:
        self.at(pipe)
        value: Any = _NO_FINAL
        for command in pipe.cmds:
            value = self.eval_command(dot, command, value)
            if isinstance(value, _Iface):
                value = _concrete(value)
        for variable in pipe.decl:
            if pipe.is_assign:
                self.set_var(variable.ident[0], value)
            else:
                self.vars.append((variable.ident[0], value))
        return value

    def not_a_function(self, args: list[_Node], final: Any) -> None:
        if len(args) > 1 or final is not _NO_FINAL:
            self.error(f"can't give argument to non-function {args[0]}")

    def eval_command(self, dot: Any, command: _Command, final: Any) -> Any:
        first = command.args[0]
        if isinstance(first, _Field):
            return self.eval_field_node(dot, first, command.args, final)
        if isinstance(first, _Chain):
            return self.eval_chain(dot, first, command.args, final)
        if isinstance(first, _Identifier):
            return self.eval_function(dot, first, command, command.args, final)
        if isinstance(first, _Pipe):
            self.not_a_function(command.args, final)
            return self.eval_pipeline(dot, first)
        if isinstance(first, _Variable):
            return self.eval_variable(dot, first, command.args, final)
        self.at(first)
        self.not_a_function(command.args, final)
        return self.literal(dot, first)

    def literal(self, dot: Any, node: _Node) -> Any:
        if isinstance(node, _Bool):
            return node.value
        if isinstance(node, _Dot):
            return dot
        if isinstance(node, _Nil):
            self.error("nil is not a command")
        if isinstance(node, _Number):
            self.at(node)
            if node.value is None:
                self.error(f"{node.text} overflows int")
            return node.value
        if isinstance(node, _String):
            return node.text
        self.error(f"can't evaluate command {gotext.quote(str(node))}")
        raise AssertionError

    def eval_field_node(self, dot: Any, node: _Field, args: list[_Node] | None, final: Any) -> Any:
        self.at(node)
        return self.eval_field_chain(dot, dot, node, node.ident, args, final)

    def eval_chain(self, dot: Any, node: _Chain, args: list[_Node] | None, final: Any) -> Any:
        self.at(node)
        if isinstance(node.node, _Nil):
            self.error(f"indirection through explicit nil in {node}")
        receiver = self.eval_arg(dot, None, node.node)
        return self.eval_field_chain(dot, receiver, node, node.fields, args, final)

    def eval_variable(self, dot: Any, node: _Variable, args: list[_Node] | None, final: Any) -> Any:
        self.at(node)
        value = self.var(node.ident[0])
        if len(node.ident) == 1:
            self.not_a_function(args or [node], final)
            return value
        return self.eval_field_chain(dot, value, node, node.ident[1:], args, final)

    def eval_field_chain(
        self, dot: Any, receiver: Any, node: _Node, ident: list[str], args: list[_Node] | None, final: Any
    ) -> Any:
        for name in ident[:-1]:
            receiver = self.eval_field(name, None, _NO_FINAL, receiver)
        return self.eval_field(ident[-1], args, final, receiver)

    def eval_field(self, name: str, args: list[_Node] | None, final: Any, receiver: Any) -> Any:
        if receiver is _INVALID:
            if self.strict:
                self.error(f"nil data; no entry for key {gotext.quote(name)}")
            return _INVALID
        type_name = _type_name(receiver)
        receiver, is_nil = _indirect(receiver)
        if is_nil:
            self.error(f"nil pointer evaluating {type_name}.{name}")
        has_args = (args is not None and len(args) > 1) or final is not _NO_FINAL
        if isinstance(receiver, dict):
            if has_args:
                self.error(f"{name} is not a method but has arguments")
            if name in receiver:
                return _Iface(receiver[name])
            if self.strict:
                self.error(f"map has no entry for key {gotext.quote(name)}")
            return _INVALID
        self.error(f"can't evaluate field {name} in type {type_name}")
        raise AssertionError

    def eval_function(self, dot: Any, node: _Identifier, command: _Node, args: list[_Node] | None, final: Any) -> Any:
        self.at(node)
        return self.eval_call(dot, _BUILTINS[node.name], command, node.name, args, final)

    def eval_call(
        self, dot: Any, function: _Function, node: _Node, name: str, args: list[_Node] | None, final: Any
    ) -> Any:
        operands = args[1:] if args is not None else []
        count = len(operands) + (0 if final is _NO_FINAL else 1)
        fixed = len(function.params) - 1 if function.variadic else len(function.params)
        if function.variadic and count < fixed:
            self.error(f"wrong number of args for {name}: want at least {fixed} got {len(operands)}")
        if not function.variadic and count != fixed:
            self.error(f"wrong number of args for {name}: want {fixed} got {count}")
        if name in ("and", "or"):
            value: Any = _INVALID
            for operand in operands:
                value = self.eval_arg(dot, "value", operand)
                if _truth(value) == (name == "or"):
                    return value
            if final is not _NO_FINAL:
                value = self.validate_type(final, "value")
            return value

        def param(position: int) -> str:
            return function.params[min(position, len(function.params) - 1)]

        values = [self.eval_arg(dot, param(i), operand) for i, operand in enumerate(operands)]
        if final is not _NO_FINAL:
            values.append(self.validate_type(final, param(len(operands))))
        values = [_as_interface(v) if param(i) == "any" else v for i, v in enumerate(values)]
        try:
            return function.run(*values)
        except _CallError as error:
            self.at(node)
            self.error(f"error calling {name}: {error}")
            raise AssertionError from None

    def validate_type(self, value: Any, kind: str | None) -> Any:
        if value is _INVALID:
            if kind is None or kind == "value":
                return _INVALID
            if kind == "any":
                return _Iface(None)
            self.error(f"invalid value; expected {kind}")
        if kind == "string" and not isinstance(value, str):
            inner, is_nil = _indirect(value)
            if isinstance(inner, str) and not is_nil:
                return inner
            self.error(f"wrong type for value; expected string; got {_type_name(inner)}")
        return value

    def eval_arg(self, dot: Any, kind: str | None, node: _Node) -> Any:
        self.at(node)
        if isinstance(node, _Dot):
            return self.validate_type(dot, kind)
        if isinstance(node, _Nil):
            if kind in ("value", "any"):
                return _INVALID if kind == "value" else _Iface(None)
            self.error(f"cannot assign nil to {kind}")
        if isinstance(node, _Field):
            return self.validate_type(self.eval_field_node(dot, node, [node], _NO_FINAL), kind)
        if isinstance(node, _Variable):
            return self.validate_type(self.eval_variable(dot, node, None, _NO_FINAL), kind)
        if isinstance(node, _Pipe):
            return self.validate_type(self.eval_pipeline(dot, node), kind)
        if isinstance(node, _Identifier):
            return self.validate_type(self.eval_function(dot, node, node, None, _NO_FINAL), kind)
        if isinstance(node, _Chain):
            return self.validate_type(self.eval_chain(dot, node, None, _NO_FINAL), kind)
        if kind == "string":
            if isinstance(node, _String):
                return node.text
            self.error(f"expected string; found {node}")
        return self.literal(dot, node)


@dataclass(frozen=True)
class GoTemplate:
    """A parsed template, ready to run against JSON-decoded objects."""

    text: str
    _root: _List

    def execute(self, data: Any, *, allow_missing_keys: bool) -> str:
        """The text kubectl prints for `-o go-template=<text>`."""
        state = _State(self.text, strict=not allow_missing_keys)
        value = _from_json(data)
        try:
            state.vars.append(("$", value))
            state.walk(value, self._root)
        except _ExecError as error:
            debug = (
                f"Error executing template: {error}. Printing more information for debugging the template:\n"
                f"\ttemplate was:\n\t\t{self.text}\n"
                f"\traw data was:\n\t\t{gotext.json_marshal(data)}\n"
                f"\tobject given to template engine was:\n\t\t{gotext.format_v(value)}\n\n"
            )
            raise TemplateError(
                f"error executing template {gotext.quote(self.text)}: {error}", output="".join(state.out) + debug
            ) from None
        return "".join(state.out)


def parse_go_template(text: str) -> GoTemplate:
    """Parse Go template text as kubectl does (template name `output`, kubectl's extra functions)."""
    try:
        return GoTemplate(text, _Parser(text).parse())
    except _ParseError as error:
        raise TemplateError(f"error parsing template {text}, {error}") from None
