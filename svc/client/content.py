"""What the controllers' client sends and reads: JSON, or Protobuf for built-in kinds.

This is client-go's `ContentConfig` as the controller manager sets it (`--kube-api-content-type`,
default `application/vnd.kubernetes.protobuf`): a typed client asks for `<protobuf>, */*` and sends
bodies of built-in kinds in Protobuf, while the dynamic client (custom resources) and every patch
stay JSON. Our controllers share one client for all of it, so the choice is made per request: a path
whose group/version has Protobuf messages in the codec's table is a built-in one, and a body goes in
Protobuf when its kind has a message (anything the encoder refuses goes as JSON, which the server
reads as well). Responses are decoded by their Content-Type, so a JSON answer (a custom resource, the
`*/*` fallback) reads the same. The codec is the server's (`svc.wire.protobuf`); the objects it gives
back are the dicts JSON gives, except that a Protobuf list's items carry no apiVersion and kind: they
are filled in from the list's, as the server's JSON carries them.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from svc.api.brand import Profile
from svc.wire.protobuf import ProtobufError, decode_object, decode_watch_event, encode_object, frame_length
from svc.wire.protobuf.schema import schema

Obj = dict[str, Any]
JSON = "application/json"
_FRAME_HEADER = 4


def _identity(group: str) -> str:
    return group


@functools.cache
def _built_in(group_version: str) -> bool:
    return group_version in schema().kinds


def _media_type(content_type: str) -> str:
    return content_type.partition(";")[0].strip().lower()


@dataclass(frozen=True)
class ContentConfig:
    protobuf: str = ""
    """The Protobuf media type of the server's brand; empty: JSON only."""
    group_of: Callable[[str], str] = _identity
    """Served group -> upstream group, to find a kind's message."""

    @classmethod
    def for_content_type(cls, content_type: str, profile: Profile) -> ContentConfig:
        """Protobuf when `content_type` is the profile's Protobuf media type, else JSON."""
        if _media_type(content_type) == profile.protobuf_media_type:
            return cls(profile.protobuf_media_type, profile.upstream_group)
        return cls()

    def _built_in_path(self, path: str) -> bool:
        parts = path.partition("?")[0].split("/")
        if len(parts) > 2 and parts[1] == "api":
            return _built_in(parts[2])
        if len(parts) > 3 and parts[1] == "apis":
            return _built_in(f"{self.group_of(parts[2])}/{parts[3]}")
        return False

    def accept(self, path: str) -> str:
        """The Accept header of a request to `path`."""
        if self.protobuf and self._built_in_path(path):
            return f"{self.protobuf}, */*"
        return JSON

    def metadata_accept(self, kind: str, meta_group: str) -> str:
        """Accept of a metadata-only request (`PartialObjectMetadata[List]`), as client-go's metadata
        client asks: Protobuf first, then JSON of the view, then plain JSON."""
        view = f";as={kind};g={meta_group};v=v1"
        if self.protobuf:
            return f"{self.protobuf}{view},{JSON}{view},{JSON}"
        return f"{JSON}{view}"

    def body(self, body: Any, content_type: str) -> tuple[bytes, str]:
        """The encoded body and its Content-Type: Protobuf for a built-in kind sent as a whole object
        (`content_type` JSON), the given type (a patch) otherwise."""
        if self.protobuf and content_type == JSON and isinstance(body, dict):
            try:
                return encode_object(body, group_of=self.group_of), self.protobuf
            except ProtobufError:  # no message for the kind (NotMarshalableError) or not encodable
                pass
        return orjson.dumps(body), content_type

    def is_protobuf(self, content_type: str) -> bool:
        return bool(self.protobuf) and _media_type(content_type) == self.protobuf

    def decode(self, content_type: str, payload: bytes) -> Any:
        """A response body as JSON-shaped data; ValueError when it is malformed."""
        if not self.is_protobuf(content_type):
            return orjson.loads(payload)
        decoded = decode_object(payload, group_of=self.group_of)
        kind = decoded.get("kind", "")
        if kind.endswith("List") and isinstance(decoded.get("items"), list):
            item_kind, api_version = kind.removesuffix("List"), decoded["apiVersion"]
            for item in decoded["items"]:
                item.setdefault("kind", item_kind)
                item.setdefault("apiVersion", api_version)
        return decoded

    async def watch_events(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[Obj]:
        """The events of a Protobuf watch stream (length-prefixed `WatchEvent` frames) as the JSON
        stream's `{"type", "object"}` dicts."""
        pending = bytearray()
        async for chunk in chunks:
            pending += chunk
            start = 0
            while len(pending) - start >= _FRAME_HEADER:
                end = start + _FRAME_HEADER + frame_length(bytes(pending[start : start + _FRAME_HEADER]))
                if end > len(pending):
                    break
                event_type, obj = decode_watch_event(pending[start:end], group_of=self.group_of)
                yield {"type": event_type, "object": obj}
                start = end
            del pending[:start]
