"""Generate svc/wire/protobuf/messages.json from the upstream `generated.proto` files.

The protobuf codec needs, for every message of the built-in API types, its field numbers and types,
and, for every kind, the message it is encoded as. The .proto files carry the first; they are not
shipped with the package, so this script reduces them to a compact table. The parser below covers
the subset of proto2 that upstream's generator emits (package, import, option, nested messages,
optional/repeated/map fields, scalar and package-qualified message types); anything else is an error.

Two facts are not in the .proto files and come from the upstream OpenAPI document:
- JSON names. The proto field name is the Go JSON name except (a) for structs embedded with
  `json:",inline"` (Volume.volumeSource, Probe.handler, ...), whose fields sit in the parent's JSON
  object: recorded with JSON name "" after checking that the definition has no property of that
  name but has every JSON property of the embedded message; and (b) for a few fields whose proto
  name came from the Go field name (`Webhooks`, `Expression`, `uID`, `aPIGroup`): recorded with
  the one JSON property that matches ignoring case. Any other mismatch is an error.
- The API group of each Go package (`k8s.io.api.rbac.v1` is group `rbac.authorization.k8s.io`),
  read from the definitions' `x-kubernetes-group-version-kind`; packages the document does not
  serve use GROUPS_NOT_SERVED below.

A third comes from the Go types themselves (the struct tags in k8s.io/api and k8s.io/apimachinery,
read from git mirrors at GO_REF, matched by Go type name = message name and protobuf field number):
which zero values upstream writes in protobuf but leaves out of its JSON. Go's protobuf marshaller
writes every non-pointer field; encoding/json drops a zero non-pointer scalar tagged `omitempty`
and a zero value tagged `omitzero`. The Go reader handles gofmt'd struct declarations, types
defined as other named types (`type MatchCondition v1.MatchCondition`) and files' imports; a
message whose Go struct has protobuf tags must match it field for field, else it is an error.

The same tags say which lists and maps upstream writes as `null` when empty: a slice or map field
(or a named slice, a list wrapper below) without `omitempty` or `omitzero` is always in Go's JSON,
and a nil one is written `null`. Protobuf storage keeps nothing for an empty one, so an object read
back from it has nil there: a Role created with `rules: []` (or without `rules`) answers `rules: null`.
The `items` of a list kind are not such a field: upstream builds every list it answers in memory,
with a non-nil (possibly empty) slice, never from storage bytes.

And they say which other fields Go's JSON always writes, zero or not (`always_written`): a non-pointer
field not inlined and without `omitzero`, when it is a struct (encoding/json never omits a struct
value, `omitempty` or not: an absent ResourceClaim `spec.devices` is written `{}`, a zero metav1.Time
`null`) or a scalar without `omitempty` (a ReplicaSet's `status.replicas` is written 0). Such a field
is in every object Go reads back, so also in any struct written as its zero value.

Output layout (one message per line, so diffs stay readable):
  {"messages": {FQN: [[number, proto_name, label, type, json_name], ...]},
   "omitted_when_zero": {FQN: [number, ...]},
   "null_when_empty": {FQN: [number, ...]},
   "always_written": {FQN: [number, ...]},
   "list_wrappers": [FQN, ...],
   "kinds": {"group/version" or "version": {Kind: FQN}},
   "every_version_kinds": {Kind: FQN}}
label is "optional", "repeated" or "map"; type is a scalar name, a message FQN, or for a map
[key_type, value_type]; json_name is the proto name unless it differs. omitted_when_zero lists,
for the messages that have any, the fields to leave out of the JSON when they decode to "", 0,
false, or (a zero Time) null. list_wrappers are the messages that stand for a named Go slice
(`Verbs`, `ExtraValue`): one `repeated items = 1` field, a JSON array.

Usage (the Go mirrors are required; the defaults are the paths below, branch release-1.36):
  python tools/gen_proto_table.py [proto_root [swagger.json]]
      [--api-mirror GIT_DIR] [--apimachinery-mirror GIT_DIR] [--go-ref REF]
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROTO_ROOT = ROOT.parent / "shared" / "upstream-proto"
DEFAULT_SWAGGER = ROOT.parent / "shared" / "upstream-openapi" / "swagger-v1.36.json"
OUTPUT = ROOT / "svc" / "wire" / "protobuf" / "messages.json"
# Go module -> read-only git mirror of its repository (no work tree), read at GO_REF.
DEFAULT_GO_MIRRORS = {
    "k8s.io/api": ROOT.parent / ".mirror" / "kubernetes+api" / "repo",
    "k8s.io/apimachinery": ROOT.parent / ".mirror" / "kubernetes+apimachinery" / "repo",
}
GO_REF = "release-1.36"

# The scalar types upstream uses, which are those the codec handles; any other is an error here.
SCALARS = {"string", "bytes", "bool", "int32", "int64"}
META = "k8s.io.apimachinery.pkg.apis.meta.v1"
META_BETA = "k8s.io.apimachinery.pkg.apis.meta.v1beta1"
# OpenAPI definition names spell the proto package root `k8s.io` as `io.k8s`.
PROTO_ROOT_NAME, OPENAPI_ROOT_NAME = "k8s.io.", "io.k8s."

# Messages whose Go zero value upstream writes as an empty message and reads back from one (their
# Marshal skips a zero time), so "zero" can be told from the bytes alone.
ZERO_IS_EMPTY = {f"{META}.Time", f"{META}.MicroTime"}

# Groups of API packages that the OpenAPI document does not serve (webhook payloads, discovery,
# removed versions). Every other package takes its group from the document.
GROUPS_NOT_SERVED = {
    "k8s.io.api.admission": "admission.k8s.io",
    "k8s.io.api.apidiscovery": "apidiscovery.k8s.io",
    "k8s.io.api.extensions": "extensions",
    "k8s.io.api.imagepolicy": "imagepolicy.k8s.io",
}

# Upstream meta registration (apimachinery pkg/apis/meta/v1/register.go): WatchEvent and the option
# kinds exist in every group version; Status and the discovery documents are "unversioned" v1; the
# meta.k8s.io group carries the alternative representations. Table has no protobuf message upstream.
EVERY_VERSION_KINDS = [
    "WatchEvent",
    "ListOptions",
    "GetOptions",
    "DeleteOptions",
    "CreateOptions",
    "UpdateOptions",
    "PatchOptions",
]
UNVERSIONED_KINDS = ["Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"]
META_GROUP_KINDS = {
    "meta.k8s.io/v1": (META, ["TableOptions", "PartialObjectMetadata", "PartialObjectMetadataList"]),
    "meta.k8s.io/v1beta1": (META_BETA, ["PartialObjectMetadataList"]),
}


class ProtoSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class GoField:
    """What the Go struct tag and type of a field say about its JSON: the type as written
    (`*int32`, `[]byte`, `metav1.Time`) and the options after the JSON name (`omitempty`, ...)."""

    type: str
    json_options: frozenset[str]

    @property
    def pointer(self) -> bool:
        return self.type.startswith("*")


@dataclass
class Field:
    number: int
    name: str
    label: str  # optional | repeated | map
    type: str | tuple[str, str]  # as written until parse_tree resolves it; a map: (key, value)
    json_name: str | None = None
    go: GoField | None = None  # the Go struct field with this protobuf number, once read


@dataclass
class Message:
    fqn: str
    go_package: str = ""
    fields: list[Field] = field(default_factory=list)


_TOKEN = re.compile(
    r"""\s+|//[^\n]*|/\*.*?\*/|(?P<tok>"(?:[^"\\]|\\.)*"|[A-Za-z_.][A-Za-z0-9_.]*|-?\d+|[{}=;<>,\[\]()])""",
    re.S,
)


def tokenize(text: str) -> list[str]:
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ProtoSyntaxError(f"unexpected character {text[pos]!r} at offset {pos}")
        if m.group("tok") is not None:
            tokens.append(m.group("tok"))
        pos = m.end()
    return tokens


class Parser:
    """Recursive descent over one file's tokens, collecting messages into `messages`."""

    def __init__(self, tokens: list[str], messages: dict[str, Message]) -> None:
        self.tokens, self.pos, self.messages = tokens, 0, messages
        self.package = self.go_package = ""

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if not tok or (expected is not None and tok != expected):
            raise ProtoSyntaxError(f"expected {expected or 'a token'}, found {tok or 'end of file'!r}")
        self.pos += 1
        return tok

    def skip_statement(self) -> None:
        while self.take() != ";":
            pass

    def parse_file(self) -> None:
        while self.peek():
            tok = self.take()
            if tok == "package":
                self.package = self.take()
                self.take(";")
            elif tok == "option" and self.peek() == "go_package":
                self.take()
                self.take("=")
                self.go_package = self.take().strip('"')
                self.take(";")
            elif tok in ("syntax", "import", "option"):
                self.skip_statement()
            elif tok == "message":
                self.parse_message(self.package)
            else:
                raise ProtoSyntaxError(f"unsupported top-level statement {tok!r}")

    def parse_message(self, scope: str) -> None:
        fqn = f"{scope}.{self.take()}" if scope else self.take()
        msg = self.messages[fqn] = Message(fqn, self.go_package)
        self.take("{")
        while self.peek() != "}":
            tok = self.take()
            if tok == "message":
                self.parse_message(fqn)
            elif tok == "option":
                self.skip_statement()
            elif tok in ("optional", "repeated", "required"):
                type_ = self.take()
                msg.fields.append(self.parse_field_rest("repeated" if tok == "repeated" else "optional", type_))
            elif tok == "map":
                self.take("<")
                key = self.take()
                self.take(",")
                value = self.take()
                self.take(">")
                msg.fields.append(self.parse_field_rest("map", (key, value)))
            else:
                raise ProtoSyntaxError(f"unsupported statement {tok!r} in message {fqn}")
        self.take("}")

    def parse_field_rest(self, label: str, type_: str | tuple[str, str]) -> Field:
        name = self.take()
        self.take("=")
        number = int(self.take())
        if self.peek() == "[":
            while self.take() != "]":
                pass
        self.take(";")
        return Field(number, name, label, type_)


def resolve_name(name: str, scope: str, messages: dict[str, Message]) -> str:
    """Protobuf scoping: a leading dot is absolute, otherwise search from the referring message out."""
    if name in SCALARS:
        return name
    if name.startswith("."):
        if name[1:] not in messages:
            raise ProtoSyntaxError(f"unknown message type {name}")
        return name[1:]
    parts = scope.split(".") if scope else []
    for i in range(len(parts), -1, -1):
        candidate = ".".join([*parts[:i], name])
        if candidate in messages:
            return candidate
    raise ProtoSyntaxError(f"unknown type {name} in {scope} (scalars supported: {', '.join(sorted(SCALARS))})")


def parse_tree(proto_root: Path) -> dict[str, Message]:
    messages: dict[str, Message] = {}
    for path in sorted(proto_root.rglob("*.proto")):
        Parser(tokenize(path.read_text()), messages).parse_file()
    for msg in messages.values():
        for f in msg.fields:
            if isinstance(f.type, tuple):
                f.type = (
                    resolve_name(f.type[0], msg.fqn, messages),
                    resolve_name(f.type[1], msg.fqn, messages),
                )
            else:
                f.type = resolve_name(f.type, msg.fqn, messages)
    return messages


# gofmt'd Go: a top-level struct type ends at the first `}` in column 0; its own fields are indented by
# one tab (nested struct literals by more); a field is `Name Type \`tags\`` or, embedded, `Type \`tags\``.
# A type may also be defined as (or alias) another named type, possibly of an imported package.
_GO_STRUCT = re.compile(r"^type (\w+) struct ?\{(?:\}|\n(.*?)^\})", re.M | re.S)
_GO_FIELD = re.compile(r"^\t(?:\w+ +)?(?P<type>[^\s`/][^\s`]*) +`(?P<tags>[^`]*)`", re.M)
_GO_TAG = re.compile(r'(\w+):"((?:[^"\\]|\\.)*)"')
_GO_DECLARED = re.compile(r"^type (\w+) ", re.M)
_GO_DEFINED = re.compile(r"^type (\w+) (?:= )?(?:(\w+)\.)?([A-Z]\w*)$", re.M)
_GO_IMPORTS = re.compile(r"^import (?:\((.*?)^\)|(.*?)$)", re.M | re.S)
_GO_IMPORT = re.compile(r'(?:(\w+) +)?"([^"]+)"')

GoType = dict[int, GoField] | tuple[str, str]  # a struct's tagged fields, or (package, name) it is defined as


def git(mirror: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        return subprocess.run(["git", "-C", str(mirror), *args], input=stdin, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = exc.stderr.decode().strip() if isinstance(exc, subprocess.CalledProcessError) else exc
        raise SystemExit(f"git {args[0]} in {mirror} failed: {detail}") from None


def go_sources(mirror: Path, ref: str, directories: set[str]) -> dict[str, list[str]]:
    """The hand-written .go files (no tests, no generated.pb.go) directly in each directory, as text."""
    listed = git(mirror, "ls-tree", "-r", "--name-only", ref, "--", *sorted(directories)).decode().split()
    paths = [
        path
        for path in listed
        if posixpath.dirname(path) in directories and path.endswith(".go") and not path.endswith(("_test.go", ".pb.go"))
    ]
    batch = git(mirror, "cat-file", "--batch", stdin="".join(f"{ref}:{path}\n" for path in paths).encode())
    sources: dict[str, list[str]] = defaultdict(list)
    pos = 0
    for path in paths:  # each blob is `<oid> blob <size>\n<content>\n`
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].rsplit(b" ", 1)[1])
        sources[posixpath.dirname(path)].append(batch[header_end + 1 : header_end + 1 + size].decode())
        pos = header_end + 1 + size + 1
    return sources


def go_types(source: str, package: str) -> dict[str, GoType]:
    """The types of a Go file: a struct's protobuf-tagged fields by protobuf number; for a type defined
    as another named type, (import path, name) of that type; no fields for any other type."""
    imports = {}
    for block in _GO_IMPORTS.finditer(source):
        for alias, path in _GO_IMPORT.findall(block.group(1) or block.group(2)):
            imports[alias or posixpath.basename(path)] = path
    types: dict[str, GoType] = {name: {} for name in _GO_DECLARED.findall(source)}  # others: no fields
    for name, qualifier, target in _GO_DEFINED.findall(source):
        types[name] = (imports.get(qualifier, qualifier) if qualifier else package, target)
    for struct in _GO_STRUCT.finditer(source):
        fields = types[struct.group(1)] = {}
        for line in _GO_FIELD.finditer(struct.group(2) or ""):
            tags = dict(_GO_TAG.findall(line.group("tags")))
            if tags.get("protobuf", "-") != "-":
                number = int(tags["protobuf"].split(",")[1])
                fields[number] = GoField(line.group("type"), frozenset(tags.get("json", "").split(",")[1:]))
    return types


def read_go_fields(messages: dict[str, Message], mirrors: dict[str, Path], ref: str) -> list[str]:
    """Attach to every proto field the Go struct field of the same message and number. Returns the
    messages whose Go type has no protobuf-tagged fields (custom marshalling: Time, Quantity, ...),
    which are left without; any other message must match its Go struct number for number."""
    by_package: dict[str, list[Message]] = defaultdict(list)
    for msg in messages.values():
        by_package[msg.go_package].append(msg)
    types: dict[tuple[str, str], GoType] = {}
    for module, mirror in mirrors.items():
        directories = {p.removeprefix(module + "/") for p in by_package if p.startswith(module + "/")}
        for directory, texts in go_sources(mirror, ref, directories).items():
            package = f"{module}/{directory}"
            for text in texts:
                types.update(((package, name), found) for name, found in go_types(text, package).items())

    def struct_fields(package: str, name: str) -> dict[int, GoField]:
        found = types.get((package, name))
        if found is None:
            raise ProtoSyntaxError(f"no Go type {name} in package {package} ({', '.join(sorted(mirrors))})")
        return struct_fields(*found) if isinstance(found, tuple) else found

    untagged = []
    for package, package_messages in sorted(by_package.items()):
        for msg in package_messages:
            go_fields = struct_fields(package, msg.fqn.rsplit(".", 1)[1])
            if msg.fields and not go_fields:
                untagged.append(msg.fqn)
                continue
            if set(go_fields) != {f.number for f in msg.fields}:
                raise ProtoSyntaxError(
                    f"{msg.fqn}: Go field numbers {sorted(go_fields)}"
                    f" differ from proto field numbers {sorted(f.number for f in msg.fields)}"
                )
            for f in msg.fields:
                f.go = go_fields[f.number]
    return sorted(untagged)


def omitted_when_zero(f: Field) -> bool:
    """Whether upstream's JSON leaves the field out when it holds its zero value, which upstream's
    protobuf writes all the same. encoding/json's omitempty drops "", 0, false and empty slices but
    never a struct; omitzero drops a zero value (the type's IsZero when it has one); neither drops
    a non-nil pointer, so `*int32` 0 and `*string` "" stay."""
    go = f.go
    if go is None or f.label != "optional" or go.pointer:
        return False
    if f.type in SCALARS:
        # omitzero alone keeps an empty non-nil []byte, and a nil one is not on the wire
        return "omitempty" in go.json_options or ("omitzero" in go.json_options and f.type != "bytes")
    if "omitzero" not in go.json_options:
        return False
    if f.type not in ZERO_IS_EMPTY:
        raise ProtoSyntaxError(f"field {f.name}: omitzero on a {f.type} value is not supported")
    return True


def null_when_empty(msg: Message, f: Field, wrappers: frozenset[str]) -> bool:
    """Whether upstream's JSON writes the list or map field as `null` when it is empty: encoding/json
    writes a nil slice or map as null unless the tag says `omitempty` (or `omitzero`), and a list or
    map read back from protobuf is nil when it was empty. Not the items of a list kind (its metadata is
    a ListMeta), which upstream always builds as a slice."""
    go = f.go
    if go is None or {"omitempty", "omitzero"} & go.json_options:
        return False
    if f.name == "items" and any(other.type == f"{META}.ListMeta" for other in msg.fields):
        return False
    if f.label in ("repeated", "map"):
        return True
    return f.label == "optional" and f.type in wrappers and not go.pointer


def always_written(f: Field, wrappers: frozenset[str]) -> bool:
    """Whether upstream's JSON writes the (non-list) field whatever it holds: a non-pointer struct
    (its zero is `{}`, or what its custom marshalling writes for zero) unless tagged `omitzero`, or
    a non-pointer scalar without `omitempty` or `omitzero`. Not a struct inlined into its parent's
    JSON object (its fields are the parent's), nor a named slice (`null_when_empty`)."""
    go = f.go
    if go is None or f.label != "optional" or go.pointer or f.json_name == "" or "omitzero" in go.json_options:
        return False
    if f.type in SCALARS:
        return "omitempty" not in go.json_options
    return f.type not in wrappers


def list_wrappers(messages: dict[str, Message], definitions: dict) -> list[str]:
    """Named Go slices: one `repeated items = 1` field and no OpenAPI object of their own (a struct
    with an `items` field, such as DownwardAPIProjection, has one)."""
    return sorted(
        m.fqn
        for m in messages.values()
        if len(m.fields) == 1
        and (m.fields[0].number, m.fields[0].name, m.fields[0].label) == (1, "items", "repeated")
        and json_properties(messages, definitions, m.fqn) is None
    )


def api_package(fqn: str) -> tuple[str, str]:
    """`k8s.io.api.apps.v1.Deployment` -> (`k8s.io.api.apps`, `v1`)."""
    package = fqn.rsplit(".", 1)[0]
    base, version = package.rsplit(".", 1)
    return base, version


def openapi_name(fqn: str) -> str:
    return OPENAPI_ROOT_NAME + fqn.removeprefix(PROTO_ROOT_NAME)


def json_properties(messages: dict[str, Message], definitions: dict, fqn: str) -> tuple[set[str], bool] | None:
    """JSON property names of a message's OpenAPI definition. A version the document does not serve
    borrows the definition of the same-named message in another version of its package, or failing
    that (extensions/v1beta1) in any package where the message has the very same fields. The flag
    says whether the definition is the message's own: a field of an old version may be gone from
    the borrowed one, so only the message's own definition proves a name wrong."""
    own = definitions.get(openapi_name(fqn), {})
    if "properties" in own:
        return set(own["properties"]), True
    base, _ = api_package(fqn)
    name = fqn.rsplit(".", 1)[1]
    shape = field_shape(messages[fqn])
    same_package = sorted(m for m in messages if m != fqn and api_package(m)[0] == base and m.endswith("." + name))
    same_shape = sorted(
        m for m in messages if m != fqn and m.endswith("." + name) and field_shape(messages[m]) == shape
    )
    for other in same_package + same_shape:
        borrowed = definitions.get(openapi_name(other), {})
        if "properties" in borrowed:
            return set(borrowed["properties"]), False
    return None


def field_shape(msg: Message) -> list[tuple]:
    def short(type_: str | tuple[str, str]) -> str | tuple[str, ...]:
        return tuple(t.rsplit(".", 1)[-1] for t in type_) if isinstance(type_, tuple) else type_.rsplit(".", 1)[-1]

    return sorted((f.number, f.name, f.label, short(f.type)) for f in msg.fields)


def assign_json_names(messages: dict[str, Message], definitions: dict) -> None:
    """Record JSON names that differ from proto names: inline-embedded structs, and the few fields whose
    proto name was derived from the Go field name (`Webhooks`, `uID`, `aPIGroup`) rather than the JSON tag."""
    settled: set[str] = set()

    def json_names(fqn: str) -> set[str]:
        """The JSON keys a message's fields occupy, with inline fields flattened."""
        msg = messages[fqn]
        if fqn not in settled:
            settled.add(fqn)
            found = json_properties(messages, definitions, fqn)
            for f in msg.fields:
                if found is not None and f.name not in found[0]:
                    f.json_name = json_name_for(fqn, f, *found)
        names: set[str] = set()
        for f in msg.fields:
            names |= json_names(f.type) if f.json_name == "" else {f.name if f.json_name is None else f.json_name}
        return names

    def json_name_for(fqn: str, f: Field, props: set[str], exact: bool) -> str | None:
        same_but_case = [p for p in props if p.lower() == f.name.lower()]
        if len(same_but_case) == 1:
            return same_but_case[0]
        if f.label == "optional" and f.type in messages and json_names(f.type) <= props:
            return ""
        if not exact:
            return None
        raise ProtoSyntaxError(f"{fqn}.{f.name} has no JSON property and is not an inline struct")

    for fqn in messages:
        json_names(fqn)


def package_groups(definitions: dict) -> dict[str, str]:
    groups = dict(GROUPS_NOT_SERVED)
    for name, definition in definitions.items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            fqn = PROTO_ROOT_NAME + name.removeprefix(OPENAPI_ROOT_NAME)
            if fqn.startswith("k8s.io.api."):
                groups[api_package(fqn)[0]] = gvk["group"]
    return groups


def root_messages(messages: dict[str, Message], package: str) -> list[str]:
    """Kinds of a package version the OpenAPI document does not serve: the messages no other message
    of the package refers to, except through a `<Kind>List`'s items."""
    in_package = [m for m in messages.values() if m.fqn.rsplit(".", 1)[0] == package]
    referenced = {
        f.type[1] if isinstance(f.type, tuple) else f.type
        for m in in_package
        for f in m.fields
        if not (m.fqn.endswith("List") and f.name == "items")
    }
    return [m.fqn for m in in_package if m.fqn not in referenced]


def kind_table(messages: dict[str, Message], definitions: dict) -> dict[str, dict[str, str]]:
    kinds: dict[str, dict[str, str]] = {}

    def add(group: str, version: str, kind: str, fqn: str) -> None:
        if fqn not in messages:
            raise ProtoSyntaxError(f"kind {group}/{version} {kind} has no message {fqn}")
        kinds.setdefault(f"{group}/{version}" if group else version, {})[kind] = fqn

    served_packages = set()
    for name, definition in definitions.items():
        fqn = PROTO_ROOT_NAME + name.removeprefix(OPENAPI_ROOT_NAME)
        if not fqn.startswith("k8s.io.api."):
            continue
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            add(gvk["group"], gvk["version"], gvk["kind"], fqn)
            served_packages.add(fqn.rsplit(".", 1)[0])

    groups = package_groups(definitions)
    packages = {m.fqn.rsplit(".", 1)[0] for m in messages.values() if m.fqn.startswith("k8s.io.api.")}
    for package in sorted(packages - served_packages):
        base, version = package.rsplit(".", 1)
        for fqn in root_messages(messages, package):
            add(groups[base], version, fqn.rsplit(".", 1)[1], fqn)

    for kind in UNVERSIONED_KINDS:
        add("", "v1", kind, f"{META}.{kind}")
    for group_version, (package, names) in META_GROUP_KINDS.items():
        group, version = group_version.split("/")
        for kind in names:
            add(group, version, kind, f"{package}.{kind}")
    return {gv: dict(sorted(table.items())) for gv, table in sorted(kinds.items())}


def field_row(f: Field) -> list:
    type_ = list(f.type) if isinstance(f.type, tuple) else f.type
    row = [f.number, f.name, f.label, type_]
    if f.json_name is not None:
        row.append(f.json_name)
    return row


def _section(name: str, table: dict, last: bool = False) -> list[str]:
    """One top-level member of the output, an entry a line."""
    rows = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in table.items()]
    return [f'"{name}": {{', ",\n".join(rows), "}" if last else "},"]


def _numbers(ordered: list[Message], chosen: Callable[[Message, Field], bool]) -> dict[str, list[int]]:
    """Per message with any, the numbers of its fields `chosen` picks."""
    return {msg.fqn: numbers for msg in ordered if (numbers := sorted(f.number for f in msg.fields if chosen(msg, f)))}


def render(messages: dict[str, Message], definitions: dict) -> str:
    ordered = sorted(messages.values(), key=lambda m: m.fqn)
    wrappers = frozenset(list_wrappers(messages, definitions))
    rows = {msg.fqn: [field_row(f) for f in sorted(msg.fields, key=lambda f: f.number)] for msg in ordered}
    lines = ["{"]
    lines += _section("messages", rows)
    lines += _section("omitted_when_zero", _numbers(ordered, lambda _, f: omitted_when_zero(f)))
    lines += _section("null_when_empty", _numbers(ordered, lambda msg, f: null_when_empty(msg, f, wrappers)))
    lines += _section("always_written", _numbers(ordered, lambda _, f: always_written(f, wrappers)))
    lines.append(f'"list_wrappers": {json.dumps(sorted(wrappers))},')
    lines += _section("kinds", kind_table(messages, definitions))
    lines += _section("every_version_kinds", {kind: f"{META}.{kind}" for kind in EVERY_VERSION_KINDS}, last=True)
    lines.append("}")
    return "\n".join(lines) + "\n"


def build(
    proto_root: Path, swagger: Path, go_mirrors: dict[str, Path], go_ref: str
) -> tuple[dict[str, Message], dict, list[str]]:
    """Everything render needs: the messages with JSON names and Go fields, the OpenAPI definitions,
    and the messages whose Go type has custom marshalling."""
    messages = parse_tree(proto_root)
    definitions = json.loads(swagger.read_text())["definitions"]
    assign_json_names(messages, definitions)
    untagged = read_go_fields(messages, go_mirrors, go_ref)
    return messages, definitions, untagged


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("proto_root", nargs="?", type=Path, default=DEFAULT_PROTO_ROOT)
    parser.add_argument("swagger", nargs="?", type=Path, default=DEFAULT_SWAGGER)
    for module, mirror in DEFAULT_GO_MIRRORS.items():
        flag = "--" + module.rsplit("/", 1)[1] + "-mirror"
        parser.add_argument(flag, type=Path, default=mirror, help=f"git directory of {module}")
    parser.add_argument("--go-ref", default=GO_REF, help="branch, tag or commit of the Go mirrors")
    args = parser.parse_args(argv[1:])
    mirrors = {module: getattr(args, module.rsplit("/", 1)[1] + "_mirror") for module in DEFAULT_GO_MIRRORS}
    messages, definitions, untagged = build(args.proto_root, args.swagger, mirrors, args.go_ref)
    OUTPUT.write_text(render(messages, definitions))
    renamed = sorted(
        f"{m.fqn}.{f.name} -> {f.json_name or '(inline)'}"
        for m in messages.values()
        for f in m.fields
        if f.json_name is not None
    )
    omitted = sum(omitted_when_zero(f) for m in messages.values() for f in m.fields)
    print(
        f"wrote {OUTPUT.relative_to(ROOT)}: {len(messages)} messages;"
        f" {len(renamed)} fields have another JSON name; {omitted} are left out of JSON when zero"
    )
    for line in renamed:
        print(f"  {line}")
    print(f"{len(untagged)} messages have custom marshalling (no protobuf-tagged Go fields):")
    for fqn in untagged:
        print(f"  {fqn}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
