"""Request bodies decoded as upstream's strict decoder sees them: the value plus its duplicate keys.

JSON: orjson gives the value (the fast path every request takes). Duplicate keys need a second look,
because every JSON library keeps only the last of them: `json.loads` with a pairs hook that only
answers "any duplicate?" runs at C speed for everything but the hook; only when the answer is yes
does a third pass rebuild the pairs in document order to name each duplicate by its path
(`duplicate field "spec.template.spec.containers[0].name"`), as upstream's JSON decoder does.

YAML: upstream converts YAML to JSON through go-yaml v2 and a Go map, so the value follows go-yaml's
YAML 1.1 resolution (`y`, `on` and `off` are booleans, `0o17` and `0x1F` integers, `1:30` and
timestamps stay strings), non-string keys become strings, keys come out sorted, and a float with an
integral value becomes an integer (Go writes 3.0 as `3`). Duplicates are reported by go-yaml's strict
pass as `line 12: key "paused" already set in map`, nested ones first, the line being that of the
duplicate's value. PyYAML's C parser composes the node graph; the value is built from the nodes here
because PyYAML's own constructors implement YAML 1.1 as written, not as go-yaml reads it. Written by
hand: no maintained package reproduces go-yaml v2's resolution, merge order and alias limits.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from typing import Any, Final

import orjson
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from svc.machinery.field_validation import duplicate_field
from svc.machinery.gotext import format_float, format_sharp_v, quote
from svc.wire.errors import DecodeError

try:
    from yaml.cyaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser, Composer):  # type: ignore[no-redef]
        def __init__(self, stream: bytes) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)


def decode_json_strict(data: bytes) -> tuple[Any, list[str]]:
    """The JSON value and upstream's `duplicate field "path"` messages, in document order."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise DecodeError(f"json parse error: {error}") from None
    try:
        _DUPLICATE_FINDER.decode(data.decode(json.detect_encoding(data), "surrogatepass"))
    except _DuplicateSeen:
        return value, _json_duplicates(json.loads(data, object_pairs_hook=_Pairs))
    except RecursionError:
        raise DecodeError("json parse error: exceeded max depth") from None
    return value, []


class _DuplicateSeen(Exception):
    pass


def _raise_on_duplicate(pairs: list[tuple[str, Any]]) -> None:
    if len(pairs) > 1 and len(dict(pairs)) != len(pairs):
        raise _DuplicateSeen


# What `json.loads(data, object_pairs_hook=...)` does, without building a decoder per request.
_DUPLICATE_FINDER: Final = json.JSONDecoder(object_pairs_hook=_raise_on_duplicate)


class _Pairs(list):
    """A JSON object as its key/value pairs, repeats included."""


def _json_duplicates(root: Any) -> list[str]:
    """Depth first in document order: a repeated key is reported after the values before it."""
    found: dict[str, None] = {}
    pending: list[tuple[Any, str | None]] = [(root, "")]
    while pending:
        node, path = pending.pop()
        if path is None:
            found.setdefault(node)
            continue
        steps: list[tuple[Any, str | None]] = []
        if isinstance(node, _Pairs):
            seen: set[str] = set()
            for key, value in node:
                child = f"{path}.{key}" if path else key
                if key in seen:
                    steps.append((duplicate_field(child), None))
                seen.add(key)
                steps.append((value, child))
        elif isinstance(node, list):
            steps = [(item, f"{path}[{index}]") for index, item in enumerate(node)]
        pending.extend(reversed(steps))
    return list(found)


def decode_yaml_strict(data: bytes) -> tuple[Any, list[str]]:
    """The value of the first YAML document as upstream converts it to JSON, and its duplicate keys."""
    if data.lstrip()[:1] == b"{":
        as_json = _json_document(data)
        if as_json is not None:
            return as_json, []
    return read_yaml_document(data)


def read_yaml_document(data: bytes) -> tuple[Any, list[str]]:
    """decode_yaml_strict without its JSON shortcut: the YAML reading proper."""
    _check_flow_depth(data)
    parser = _NodeReader(data)
    try:
        node = parser.get_node() if parser.check_node() else None
    except yaml.YAMLError as error:
        if getattr(error, "problem", None) == _LIBYAML_TOO_DEEP:
            raise DecodeError(_TOO_DEEP) from None
        raise DecodeError(_yaml_error_text(error, data)) from None
    finally:
        parser.dispose()
    if node is None:
        return None, []
    builder = _Builder(data)
    try:
        value = _json_scalar(builder.build(node))
    except RecursionError:
        raise DecodeError(_TOO_DEEP) from None
    return value, builder.duplicates


_FLOAT_TOKEN: Final = re.compile(rb"[0-9][.eE]")
# Characters JSON lets through as they are that YAML refuses (outside its printable set) or reads as
# line breaks (NEL, LS, PS) or a byte order mark: a document with any of them takes the YAML path.
_NOT_PLAIN_FOR_YAML: Final = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xbf[\xbe\xbf]|\xe2\x80[\xa8\xa9]|\xef\xbb\xbf"
)


def _json_document(data: bytes) -> Any | None:
    """A YAML document written as JSON (as kubectl sends an apply), read by the JSON parser: the same
    value, many times faster. None when it is not plain JSON or repeats a key, so that the YAML reading,
    with its own messages, decides."""
    if _NOT_PLAIN_FOR_YAML.search(data):
        return None
    try:
        value, duplicates = decode_json_strict(data)
    except DecodeError:
        return None
    if duplicates:
        return None
    return _integral_floats(value) if _FLOAT_TOKEN.search(data) else value


def _integral_floats(value: Any) -> Any:
    """What the YAML path does to every number (see _json_scalar), over a whole decoded document."""
    if isinstance(value, dict):
        return {key: _integral_floats(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral_floats(item) for item in value]
    return _json_scalar(value)


# Nesting limits. go-yaml refuses flow nesting past 10,000 with its own message. Below that, the
# document is built by recursion here, and libyaml (from PyYAML 6.0.4) refuses nesting past 1,000 in
# words of its own; both cases get this module's message, so the text never depends on the library's
# version. Flow nesting is measured before parsing (brackets in quotes count: a safe excess); block
# nesting is left to libyaml's check, mapped below.
_GO_YAML_MAX_DEPTH: Final = 10_000
_MAX_DEPTH: Final = 1_000
_TOO_DEEP: Final = "yaml: document nested too deeply"
_LIBYAML_TOO_DEEP: Final = "exceeded maximum nesting depth"
_FLOW_BRACKET: Final = re.compile(rb"[\[\]{}]")


def _check_flow_depth(data: bytes) -> None:
    if data.count(b"[") + data.count(b"{") <= _MAX_DEPTH:
        return
    depth = deepest = 0
    for bracket in _FLOW_BRACKET.finditer(data):
        depth = depth + 1 if bracket.group() in (b"[", b"{") else max(depth - 1, 0)
        if depth > _GO_YAML_MAX_DEPTH:
            raise DecodeError(f"yaml: exceeded max depth of {_GO_YAML_MAX_DEPTH}")
        deepest = max(deepest, depth)
    if deepest > _MAX_DEPTH:
        raise DecodeError(_TOO_DEEP)


_PLAIN: Final = "?plain"
_QUOTED: Final = "?quoted"


class _NodeReader(_Parser):
    """libyaml's parser and composer; scalars keep only whether they were plain, resolution is ours."""

    def descend_resolver(self, *_: Any) -> None:
        pass

    def ascend_resolver(self, *_: Any) -> None:
        pass

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _QUOTED
        return ""


def _anchor_name(data: bytes, mark: Any) -> str:
    """The anchor or alias name written at a mark (libyaml's nodes and errors do not carry it)."""
    found = _ANCHOR.match(data.decode(errors="replace"), mark.index)
    return found.group(1) if found else ""


_ANCHOR: Final = re.compile(r"[&*]([^\s,\[\]{}]+)")


def _yaml_error_text(error: yaml.YAMLError, data: bytes) -> str:
    """go-yaml's wording: `yaml: line N: problem`, its line counting included."""
    if isinstance(error, yaml.reader.ReaderError):
        return f"yaml: {error.reason}"
    problem = getattr(error, "problem", None)
    if problem is None:
        return f"yaml: {error}".replace("\n", " ")
    mark = getattr(error, "problem_mark", None)
    if problem.startswith("found undefined alias") and mark is not None:
        return f"yaml: unknown anchor '{_anchor_name(data, mark)}' referenced"
    line = 0
    if mark is not None and mark.line:
        line = mark.line + 1 if isinstance(error, yaml.scanner.ScannerError) else mark.line
    elif getattr(error, "context_mark", None) is not None:
        line = error.context_mark.line
    return f"yaml: line {line}: {problem}" if line else f"yaml: {problem}"


_TAG: Final = "tag:yaml.org,2002:"
_RESOLVABLE: Final = frozenset(_TAG + name for name in ("str", "bool", "int", "float", "null", "timestamp"))
_KNOWN_SCALARS: Final[dict[str, Any]] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_NUMBER_START: Final = frozenset("0123456789+-")
_MAP_START: Final = frozenset("yYnNtTfFoO~")
_GO_FLOAT: Final = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT: Final = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_DIGITS_BY_BASE: Final = {
    2: re.compile(r"[01]+"),
    8: re.compile(r"[0-7]+"),
    10: re.compile(r"[0-9]+"),
    16: re.compile(r"[0-9a-fA-F]+"),
}
_INT64: Final = 1 << 63
_UINT64: Final = 1 << 64
_PREFIXES: Final = {"0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2}


def _go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64), falling back to ParseUint as go-yaml does."""
    sign, digits = (text[0], text[1:]) if text[:1] in "+-" else ("", text)
    base = _PREFIXES.get(digits[:2], 0)
    if base:
        digits = digits[2:]
    elif len(digits) > 1 and digits[0] == "0":
        base, digits = 8, digits[1:]
    else:
        base = 10
    if not _DIGITS_BY_BASE[base].fullmatch(digits):
        return None
    number = int(digits, base)
    if sign == "-":
        return -number if number <= _INT64 else None
    if number < _INT64 or (not sign and number < _UINT64):
        return number
    return None


def _finite(text: str) -> float | None:
    number = float(text)
    return None if math.isinf(number) else number


def _resolve_plain(text: str) -> Any:
    """go-yaml v2's reading of an untagged plain scalar; its first character says what it may be."""
    first = text[:1]
    if first and first not in _MAP_START and first not in _NUMBER_START and first != ".":
        return text
    if text in _KNOWN_SCALARS:
        return _KNOWN_SCALARS[text]
    if first == ".":
        number = _finite(text) if _DOT_FLOAT.fullmatch(text) else None
        return text if number is None else number
    if first not in _NUMBER_START:
        return text
    plain = text.replace("_", "")
    number = _go_int(plain)
    if number is not None:
        return number
    if _GO_FLOAT.fullmatch(plain):
        real = _finite(plain)
        if real is not None:
            return real
    return text


def _resolve_tagged(tag: str, text: str) -> Any:
    """A scalar with an explicit tag: the tag must agree with what the text resolves to."""
    if tag == _TAG + "str" or tag not in _RESOLVABLE:
        return text
    if tag == _TAG + "timestamp" and re.match(r"[0-9]{4}-", text):
        return text
    value = _resolve_plain(text)
    found = _yaml_type(value)
    wanted = tag.removeprefix(_TAG)
    if found == wanted:
        return value
    if wanted == "float" and found == "int":
        return float(value)
    raise DecodeError(f"yaml: cannot decode !!{found} `{text}` as a !!{wanted}")


def _yaml_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    return "float" if isinstance(value, float) else "str"


def _binary(text: str) -> str:
    try:
        raw = base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True)
    except binascii.Error:
        raise DecodeError("yaml: !!binary value contains invalid base64 data") from None
    return raw.decode(errors="replace")


def _json_key(key: Any) -> str | None:
    """How sigs.k8s.io/yaml turns a go-yaml map key into a JSON object key (None: it cannot)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        text = format_float(key)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
    return None


def _json_scalar(value: Any) -> Any:
    """A go-yaml number as it comes back from Go's JSON encoding: integral floats become integers, those
    that an int64 holds (upstream's JSON reading keeps a larger one a float64)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise DecodeError(f"json: unsupported value: {format_float(value)}")
        if value.is_integer() and -_INT64 <= value < _INT64:
            return int(value)
    return value


def _sharp_v(key: Any) -> str:
    """Go's `%#v` of a decoded YAML key, as go-yaml prints it in duplicate-key messages."""
    if key is None:
        return "<nil>"
    if isinstance(key, str):
        return quote(key)
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return hex(key) if key >= _INT64 else str(key)
    return format_float(key)


# go-yaml v2 refuses documents whose aliases expand far beyond their size (its allowedAliasRatio).
_ALIAS_RATIO_LOW: Final = 400_000
_ALIAS_RATIO_HIGH: Final = 4_000_000


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


class _Built:
    __slots__ = ("duplicates", "size", "value")

    def __init__(self, value: Any, size: int, duplicates: list[str]) -> None:
        self.value, self.size, self.duplicates = value, size, duplicates


class _Builder:
    """Walks the node graph once; a node met again is an alias, counted and copied as go-yaml expands it."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.duplicates: list[str] = []
        self._built: dict[int, _Built] = {}
        self._open: set[int] = set()
        self._decoded = 0
        self._aliased = 0

    def build(self, node: Node) -> Any:
        done = self._built.get(id(node))
        if done is not None:
            return self._alias(done)
        if id(node) in self._open:
            raise DecodeError(f"yaml: anchor '{_anchor_name(self.data, node.start_mark)}' value contains itself")
        start, decoded_before = len(self.duplicates), self._decoded
        self._decoded += 1
        if isinstance(node, ScalarNode):
            return self._scalar(node)
        self._open.add(id(node))
        value = self._mapping(node) if isinstance(node, MappingNode) else self._sequence(node)
        self._open.discard(id(node))
        size = self._decoded - decoded_before
        self._built[id(node)] = _Built(value, size, self.duplicates[start:])
        return value

    def _alias(self, done: _Built) -> Any:
        self._decoded += done.size
        self._aliased += done.size
        if (
            self._aliased > 100
            and self._decoded > 1000
            and self._aliased / self._decoded > _allowed_alias_ratio(self._decoded)
        ):
            raise DecodeError("yaml: document contains excessive aliasing")
        self.duplicates.extend(done.duplicates)
        return orjson.loads(orjson.dumps(done.value))

    def _scalar(self, node: ScalarNode) -> Any:
        if node.tag == _PLAIN:
            return _resolve_plain(node.value)
        if node.tag == _QUOTED:
            return node.value
        if node.tag == _TAG + "binary":
            return _binary(node.value)
        return _resolve_tagged(node.tag, node.value)

    def _key(self, node: Node) -> Any:
        if not isinstance(node, ScalarNode):
            raise DecodeError("yaml: invalid map key: a map or a sequence")
        self._decoded += 1
        return self._scalar(node)

    def _mapping(self, node: MappingNode) -> dict[str, Any]:
        result: dict[str, Any] = {}
        self._fill(node, set(), result)
        return {key: result[key] for key in sorted(result)} if len(result) > 1 else result

    def _fill(self, node: MappingNode, keys: set[tuple[type, Any]], result: dict[str, Any]) -> None:
        """Store a mapping's pairs into the map being built; merged maps go into the same map."""
        for key_node, value_node in node.value:
            if _is_merge(key_node):
                self._merge(value_node, keys, result)
            else:
                self._store(self._key(key_node), value_node, keys, result)

    def _store(self, key: Any, value_node: Node, keys: set[tuple[type, Any]], result: dict[str, Any]) -> None:
        value = _json_scalar(self.build(value_node))
        identity = (type(key), key)
        if identity in keys:
            self.duplicates.append(f"line {value_node.start_mark.line + 1}: key {_sharp_v(key)} already set in map")
        keys.add(identity)
        name = _json_key(key)
        if name is None:
            shown = format_sharp_v(value) if isinstance(value, dict | list) else _sharp_v(value)
            raise DecodeError(f"unsupported map key of type: %!s(<nil>), key: <nil>, value: {shown}")
        result[name] = value

    def _merge(self, node: Node, keys: set[tuple[type, Any]], result: dict[str, Any]) -> None:
        # A sequence of maps is merged last to first, so that earlier maps win.
        sources = list(reversed(node.value)) if isinstance(node, SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, MappingNode):
                raise DecodeError("yaml: map merge requires map or sequence of maps as the value")
            self._decoded += 1
            self._fill(source, keys, result)

    def _sequence(self, node: SequenceNode) -> list[Any]:
        return [_json_scalar(self.build(item)) for item in node.value]


def _is_merge(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.value == "<<" and node.tag in (_PLAIN, _TAG + "merge")


STRICT_DECODERS: Final = {"application/json": decode_json_strict, "application/yaml": decode_yaml_strict}
"""Decoders that also report duplicate keys, by the media type of the body."""
