"""How objects are written into the backend.

Values are JSON by default. Decoding recognises the format from the value itself, so data written
under an earlier `--storage-media-type` stays readable after the flag changes. An object read from
JSON or YAML is handed to `read_back`, which gives it the shape the Protobuf reader gives (upstream's
Go types read back: null lists, zero structs), so an answer does not depend on how it was stored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import orjson


class StorageCodec(Protocol):
    media_type: str

    def encode(self, obj: dict[str, Any]) -> bytes: ...

    def decode(self, data: bytes) -> dict[str, Any]:
        """Raises ValueError when the bytes are not a stored object."""
        ...

    def copy(self, obj: dict[str, Any]) -> dict[str, Any]: ...


class JsonCodec:
    media_type = "application/json"

    def encode(self, obj: dict[str, Any]) -> bytes:
        return orjson.dumps(obj)

    def decode(self, data: bytes) -> dict[str, Any]:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as error:
            raise ValueError(f"invalid JSON: {error}") from error
        if not isinstance(obj, dict):
            raise ValueError("stored value is not an object")
        return obj

    def copy(self, obj: dict[str, Any]) -> dict[str, Any]:
        return orjson.loads(orjson.dumps(obj))


class SniffingCodec:
    """Writes in one chosen format, reads whichever format a stored value is in.

    `encode` falls back to JSON for objects the chosen format cannot hold (a kind without a
    Protobuf message), as upstream does for types that ignore `--storage-media-type`."""

    def __init__(
        self,
        media_type: str,
        encode: Callable[[dict[str, Any]], bytes],
        readers: Mapping[bytes, Callable[[bytes], Any]],
        *,
        shaped: frozenset[bytes] = frozenset(),
        read_back: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """`shaped`: the prefixes of the `readers` whose objects need no `read_back`."""
        self.media_type = media_type
        self._encode = encode
        self._readers = readers
        self._shaped = shaped
        self._read_back = read_back
        self._json = JsonCodec()

    def encode(self, obj: dict[str, Any]) -> bytes:
        try:
            return self._encode(obj)
        except ValueError:
            return self._json.encode(obj)

    def decode(self, data: bytes) -> dict[str, Any]:
        if data[:1] == b"{":
            obj = self._json.decode(data)
            if self._read_back is not None:
                self._read_back(obj)
            return obj
        for prefix, read in self._readers.items():
            if data.startswith(prefix):
                try:
                    obj = read(data)
                except ValueError as error:
                    raise ValueError(f"invalid stored value: {error}") from error
                if not isinstance(obj, dict):
                    raise ValueError("stored value is not an object")
                if self._read_back is not None and prefix not in self._shaped:
                    self._read_back(obj)
                return obj
        raise ValueError("stored value is in no known format")

    def copy(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self._json.copy(obj)
