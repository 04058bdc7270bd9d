"""How objects are written into the backend.

Values are JSON by default. Decoding recognises the format from the value itself, so data written
under an earlier `--storage-media-type` stays readable after the flag changes.
"""

from __future__ import annotations

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
