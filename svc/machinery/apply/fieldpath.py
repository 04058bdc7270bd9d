"""Field paths and field sets: what a manager owns, in the FieldsV1 form stored in managedFields.

A path walks from the object root through struct fields and map keys (`f:name`), items of map lists
(`k:{"name":"x"}`), items of set lists (`v:"a"`) and items of atomic lists (`i:0`). A set is stored
flat, as a frozenset of paths, so union, difference and intersection are plain set operations; the
trie shape only matters when a set is written as FieldsV1 or iterated in upstream's order.

Upstream orders path elements field < key < value < index, then by content (numbers numerically,
then strings, booleans, lists, maps, null); FieldsV1 keys and conflict lists follow that order, so it
is reproduced exactly. Written by hand: no Python package implements structured-merge-diff's paths.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import orjson

from svc.machinery import gotext

FIELD, KEY, VALUE, INDEX = 0, 1, 2, 3


class FieldPathError(ValueError):
    """A FieldsV1 document or path element that cannot be read."""


def value_order(value: Any) -> tuple[Any, ...]:
    """A sort key giving upstream's order of JSON values; equal keys mean upstream-equal values."""
    if value is None:
        return (5,)
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list):
        return (3, tuple(value_order(item) for item in value))
    if isinstance(value, dict):
        return (4, tuple((key, value_order(item)) for key, item in sorted(value.items())))
    raise FieldPathError(f"unsupported value in a field path: {value!r}")


class PathElement:
    """One step of a path; immutable, hashable and ordered as upstream orders them."""

    __slots__ = ("_hash", "_order", "_serialized", "kind", "payload")

    kind: int
    payload: Any

    def __init__(self, kind: int, payload: Any, order: tuple[Any, ...]) -> None:
        self.kind = kind
        self.payload = payload
        self._order = (kind, order)
        self._hash = hash(self._order)
        self._serialized: str | None = None

    @classmethod
    def field(cls, name: str) -> PathElement:
        found = _FIELDS.get(name)
        if found is None:
            found = _FIELDS[name] = _interned(FIELD, name, (name,))
        return found

    @classmethod
    def key(cls, fields: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> PathElement:
        """A map-list item selected by its key fields (given in any order; kept sorted by name)."""
        given = fields if type(fields) is tuple else tuple(fields.items() if isinstance(fields, Mapping) else fields)
        remembered = tuple([(name, type(value), value) for name, value in given])  # 1, 1.0 and True differ
        try:
            return _KEYS[remembered]
        except KeyError:
            pass
        except TypeError:  # a key field holding a list or a map: nothing to remember it by
            return cls._key(given)
        found = _KEYS[remembered] = cls._key(given)
        return found

    @classmethod
    def single_key(cls, name: str, value: Any) -> PathElement:
        """`key(((name, value),))`, the usual one-field key, found without building the pairs first."""
        try:
            return _KEYS[((name, type(value), value),)]
        except (KeyError, TypeError):
            return cls.key(((name, value),))

    @classmethod
    def _key(cls, given: tuple[tuple[str, Any], ...]) -> PathElement:
        pairs = tuple(sorted(given, key=lambda p: p[0]))
        return _interned(KEY, pairs, tuple((name, value_order(value)) for name, value in pairs))

    @classmethod
    def value(cls, value: Any) -> PathElement:
        return _interned(VALUE, value, value_order(value))

    @classmethod
    def index(cls, position: int) -> PathElement:
        return _interned(INDEX, position, (position,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PathElement) and self._order == other._order

    def __lt__(self, other: PathElement) -> bool:
        return self._order < other._order

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"PathElement({self.serialize()})"

    def __str__(self) -> str:
        """The human form used in conflict messages: `.name`, `[name="x"]`, `[="a"]`, `[0]`."""
        if self.kind == FIELD:
            return "." + self.payload
        if self.kind == KEY:
            return "[" + ",".join(f"{name}={_value_text(value)}" for name, value in self.payload) + "]"
        if self.kind == VALUE:
            return f"[={_value_text(self.payload)}]"
        return f"[{self.payload}]"

    def serialize(self) -> str:
        """The FieldsV1 key form: `f:name`, `k:{...}`, `v:<json>`, `i:<n>` (made once per element)."""
        if self._serialized is None:
            self._serialized = self._serialize()
        return self._serialized

    def _serialize(self) -> str:
        if self.kind == FIELD:
            return "f:" + self.payload
        if self.kind == KEY:
            body = ",".join(
                f"{gotext.json_string(name, jsoniter=True)}:{gotext.json_marshal(v, jsoniter=True)}"
                for name, v in self.payload
            )
            return "k:{" + body + "}"
        if self.kind == VALUE:
            return "v:" + gotext.json_marshal(self.payload, jsoniter=True)
        return f"i:{self.payload}"

    @classmethod
    def parse(cls, text: str) -> PathElement | None:
        """Read a FieldsV1 key; None for an element type this version does not know (upstream skips it).
        Elements are immutable, so the same key read again (every request reads every manager's set)
        is the same element."""
        return _parse_element(text)

    @classmethod
    def _parse(cls, text: str) -> PathElement | None:
        if len(text) < 2:
            raise FieldPathError("key must be 2 characters long:")
        if text[1] != ":":
            raise FieldPathError(f"missing colon: {text}")
        kind, body = text[0], text[2:]
        if kind == "f":
            return cls.field(body)
        if kind == "i":
            if not body.lstrip("+-").isdigit():
                raise FieldPathError(f'strconv.Atoi: parsing "{body}": invalid syntax')
            return cls.index(int(body))
        if kind not in "kv":
            return None
        try:
            decoded = orjson.loads(body)
        except orjson.JSONDecodeError as error:
            raise FieldPathError(f"parsing {text!r}: {error}") from None
        if kind == "v":
            return cls.value(decoded)
        if not isinstance(decoded, dict):
            raise FieldPathError(f"parsing {text!r}: a key element must be a JSON object")
        return cls.key(decoded)


# Equal elements are made one instance (up to a bound, past which the tables start again): paths
# then compare by identity inside tuples and sets, where comparing them would call __eq__ for every
# element, and a key element is built once per distinct key rather than once per list item walked.
_INTERN_LIMIT = 200_000
_INTERNED: dict[tuple[Any, ...], PathElement] = {}
_FIELDS: dict[str, PathElement] = {}
_KEYS: dict[tuple[tuple[str, type, Any], ...], PathElement] = {}


def _interned(kind: int, payload: Any, order: tuple[Any, ...]) -> PathElement:
    identity = (kind, order)
    found = _INTERNED.get(identity)
    if found is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            _INTERNED.clear()
            _FIELDS.clear()
            _KEYS.clear()
        found = _INTERNED[identity] = PathElement(kind, payload, order)
    return found


_parse_element = functools.lru_cache(maxsize=65536)(PathElement._parse)

Path = tuple[PathElement, ...]


def make_path(*parts: str | int | Mapping[str, Any] | PathElement) -> Path:
    """Build a path: strings are field names, ints list indexes, mappings map-list keys."""
    path = []
    for part in parts:
        if isinstance(part, PathElement):
            path.append(part)
        elif isinstance(part, str):
            path.append(PathElement.field(part))
        elif isinstance(part, bool) or not isinstance(part, int | Mapping):
            raise FieldPathError(f"unable to make {part!r} into a path element")
        elif isinstance(part, int):
            path.append(PathElement.index(part))
        elif not part:
            raise FieldPathError("associative list key type path elements must have at least one key (got zero)")
        else:
            path.append(PathElement.key(part))
    return tuple(path)


def path_string(path: Path) -> str:
    """The human form of a path, e.g. `.spec.template.spec.containers[name="nginx"].image`."""
    return "".join(str(element) for element in path)


def _value_text(value: Any) -> str:
    """Upstream's value.ToString: Go `%v` for numbers and booleans, `%q` for strings."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return gotext.format_float(value)
    if isinstance(value, str):
        return gotext.quote(value)
    if isinstance(value, list):
        return "[" + ",".join(_value_text(item) for item in value) + "]"
    return "".join(f"{key}={_value_text(item)}" for key, item in sorted(value.items()))


class FieldSet:
    """An immutable set of paths: `|` union, `&` intersection, `-` difference, plus FieldsV1 encoding."""

    __slots__ = ("_paths",)

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self._paths = frozenset(path for path in paths if path)

    @classmethod
    def of(cls, *paths: Path) -> FieldSet:
        return cls(paths)

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __len__(self) -> int:
        return len(self._paths)

    def __bool__(self) -> bool:
        return bool(self._paths)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldSet) and self._paths == other._paths

    def __hash__(self) -> int:
        return hash(self._paths)

    def __repr__(self) -> str:
        return f"FieldSet({self.strings()!r})"

    def __iter__(self) -> Iterator[Path]:
        """Paths in upstream's iteration order: at each level, members first, then children."""
        return iter(_iterate(_trie(self._paths), ()))

    def __or__(self, other: FieldSet) -> FieldSet:
        return _wrap(self._paths | other._paths)

    def __and__(self, other: FieldSet) -> FieldSet:
        return _wrap(self._paths & other._paths)

    def __sub__(self, other: FieldSet) -> FieldSet:
        return _wrap(self._paths - other._paths)

    def recursive_difference(self, other: FieldSet) -> FieldSet:
        """Drop every path that is in `other` or lies under a path in `other`."""
        if not other or not self._paths:  # a create's removed and modified sets are empty: no trie for them
            return self
        root = _trie(other._paths)
        dropped = [path for path in self._paths if _under_member(root, path)]
        # Usually nothing is dropped; the set is then kept rather than hashed again path by path.
        return _wrap(self._paths.difference(dropped)) if dropped else self

    def by_first_element(self) -> dict[PathElement, tuple[bool, FieldSet]]:
        """Group by first element: (whether that one-element path is a member, the paths below it)."""
        members: set[PathElement] = set()
        below: dict[PathElement, list[Path]] = {}
        for path in self._paths:
            rest = below.setdefault(path[0], [])
            if len(path) == 1:
                members.add(path[0])
            else:
                rest.append(path[1:])
        return {element: (element in members, _wrap(rest)) for element, rest in below.items()}

    def strings(self) -> list[str]:
        return [path_string(path) for path in self]

    def to_fields_v1(self) -> dict[str, Any]:
        """The FieldsV1 trie, with keys in upstream's order so the encoded bytes match (a fresh copy:
        the encoding of a set is kept, since a manager's set rarely changes between writes)."""
        return orjson.loads(_encoded_fields_v1(self))

    @classmethod
    def from_fields_v1(cls, document: Any) -> FieldSet:
        """Read a FieldsV1 trie; keys of unknown element types are skipped, as upstream does."""
        if document is None:
            return cls()
        if not isinstance(document, dict):
            raise FieldPathError("managedFields parsing: a FieldsV1 value must be a JSON object")
        return _decoded_fields_v1(orjson.dumps(document))


# Every write reads and writes every manager's set of the object; most are the same as last time.
_SETS_KEPT = 256


@functools.lru_cache(maxsize=_SETS_KEPT)
def _encoded_fields_v1(fields: FieldSet) -> bytes:
    return orjson.dumps(_emit(_trie(fields._paths)))


@functools.lru_cache(maxsize=_SETS_KEPT)
def _decoded_fields_v1(document: bytes) -> FieldSet:
    paths: list[Path] = []
    _read(orjson.loads(document), (), paths)
    return FieldSet(paths)


def _wrap(paths: Iterable[Path]) -> FieldSet:
    fields = FieldSet.__new__(FieldSet)
    fields._paths = frozenset(paths)
    return fields


class _Node:
    __slots__ = ("children", "member")

    def __init__(self) -> None:
        self.member = False
        self.children: dict[PathElement, _Node] = {}


def _trie(paths: Iterable[Path]) -> _Node:
    root = _Node()
    for path in paths:
        node = root
        for element in path:
            child = node.children.get(element)
            if child is None:
                child = node.children[element] = _Node()
            node = child
        node.member = True
    return root


def _under_member(root: _Node, path: Path) -> bool:
    """Whether `path` or one of its prefixes is a member of the trie."""
    node: _Node | None = root
    for element in path:
        node = node.children.get(element)
        if node is None:
            return False
        if node.member:
            return True
    return False


def _iterate(node: _Node, prefix: Path) -> Iterator[Path]:
    ordered = sorted(node.children.items())
    for element, child in ordered:
        if child.member:
            yield (*prefix, element)
    for element, child in ordered:
        if child.children:
            yield from _iterate(child, (*prefix, element))


def _emit(node: _Node) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for element, child in sorted(node.children.items()):
        body = _emit(child)
        if child.member and body:
            body = {".": {}, **body}
        out[element.serialize()] = body
    return out


def _read(document: dict[str, Any], prefix: Path, out: list[Path]) -> bool:
    """Collect the paths under `prefix`; True when `prefix` itself is a member."""
    member = False
    found = False
    for key, body in document.items():
        if key == ".":
            member = True
            continue
        try:
            element = PathElement.parse(key)
        except FieldPathError as error:
            raise FieldPathError(f"parsing key as path element: {error}") from None
        if element is None:
            continue
        if body is not None and not isinstance(body, dict):
            raise FieldPathError(f"managedFields parsing: the value of {key!r} must be a JSON object")
        path = (*prefix, element)
        if _read(body or {}, path, out):
            out.append(path)
        found = True
    return member or not found
