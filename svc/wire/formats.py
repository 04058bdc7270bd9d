"""Serialization formats a body can travel in: JSON and YAML, plus those registered by other modules.

A `Format` encodes and decodes the JSON-shaped dicts the server works with. JSON is the default and
the fast path (orjson). A JSON body ends with a newline, as upstream's serializer writes it through
Go's `json.Encoder`; its `pretty` form (Go's `MarshalIndent`) does not, and an object inside a watch
frame is compact (Go compacts the embedded raw JSON), the frame itself ending the line. YAML output
sorts keys, as upstream's YAML (produced from JSON through a Go map) does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import yaml

from svc.wire.errors import DecodeError
from svc.wire.strict import decode_yaml_strict

try:
    _YamlLoader: type = yaml.CSafeLoader
    _BaseDumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _YamlLoader, _BaseDumper = yaml.SafeLoader, yaml.SafeDumper


class _GoStyleDumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """Scalars styled as upstream's Go YAML writes them: a string that would read back as another
    type is double-quoted, a multi-line string is a literal block, nothing is folded."""


_GO_YAML_BOOLEANS = frozenset({"y", "Y", "n", "N"})
"""Go's YAML 1.1 resolver also reads these as booleans, so upstream quotes them."""


def _represent_str(dumper: yaml.BaseDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    node = dumper.represent_scalar("tag:yaml.org,2002:str", value)
    if value in _GO_YAML_BOOLEANS or dumper.resolve(yaml.ScalarNode, value, (True, False)) != "tag:yaml.org,2002:str":
        node.style = '"'
    return node


_GoStyleDumper.add_representer(str, _represent_str)


@dataclass(frozen=True)
class Format:
    media_type: str
    encode: Callable[[Any], bytes | bytearray]
    """A large list's encoder may hand back its buffer rather than copy it into bytes."""
    decode: Callable[[bytes], Any]
    encode_pretty: Callable[[Any], bytes] | None = None
    watch_frame: Callable[[str, bytes], bytes] | None = None
    """Frames one watch event from its type and encoded object; None: no watch in this format."""
    stream_media_type: str = ""
    """Content type of a watch stream in this format."""
    reads_items_once: bool = False
    """Its list encoder reads each item once, in order, so items may be decoded as it goes."""

    @property
    def type(self) -> str:
        return self.media_type.split("/", 1)[0]

    @property
    def subtype(self) -> str:
        return self.media_type.split("/", 1)[1]


def _json_decode(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise DecodeError(f"json parse error: {error}") from None


encode_json: Callable[[Any], bytes] = functools.partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)
"""A JSON body as upstream writes one; orjson appends the newline in its own buffer, so a large list
is not copied to add it."""


def _json_watch_frame(event_type: str, encoded: bytes) -> bytes:
    if encoded.endswith(b"\n"):
        encoded = encoded[:-1]
    return b'{"type":"' + event_type.encode() + b'","object":' + encoded + b"}\n"


def _json_pretty(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2)


def yaml_dump(obj: Any) -> str:
    return yaml.dump(
        obj, Dumper=_GoStyleDumper, default_flow_style=False, sort_keys=True, allow_unicode=True, width=1 << 30
    )


def _yaml_encode(obj: Any) -> bytes:
    return yaml_dump(obj).encode()


def _yaml_decode(data: bytes) -> Any:
    """YAML read as upstream reads it (go-yaml's types, string keys), not as PyYAML would."""
    return decode_yaml_strict(data)[0]


JSON = Format(
    "application/json",
    encode_json,
    _json_decode,
    encode_pretty=_json_pretty,
    watch_frame=_json_watch_frame,
    stream_media_type="application/json",
)
YAML = Format("application/yaml", _yaml_encode, _yaml_decode)
