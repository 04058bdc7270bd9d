"""The value transformer interface and the provider list of one resource.

Every encrypted value starts with its provider's prefix (`k8s:enc:aescbc:v1:<key name>:` under the
kubernetes profile); the first provider of the list writes, every provider reads the values carrying
its prefix, and identity (no prefix) reads plain values. A value read by any provider other than the
first is *stale*: the next update rewrites it even when the object did not change, which is how
rewriting every object rotates keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class TransformError(ValueError):
    """A stored value cannot be turned back into plaintext (the corrupt-object case)."""


class Transformer(Protocol):
    def to_storage(self, data: bytes, context: bytes) -> bytes:
        """`context` is the value's key, authenticated by the providers that support it."""
        ...

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        """The plaintext and whether it should be rewritten (stale). Raises TransformError."""
        ...


class Identity:
    """Stores plaintext; refuses values that are encrypted, so a missing key is not read as garbage."""

    def __init__(self, encrypted_prefix: bytes) -> None:
        self._encrypted_prefix = encrypted_prefix

    def to_storage(self, data: bytes, context: bytes) -> bytes:
        return data

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        if data.startswith(self._encrypted_prefix):
            raise TransformError("identity transformer tried to read encrypted data")
        return data, False


@dataclass(frozen=True)
class Prefixed:
    prefix: bytes
    transformer: Transformer


class PrefixTransformers:
    """One resource's providers in configured order."""

    def __init__(self, providers: list[Prefixed]) -> None:
        self.providers = providers

    def to_storage(self, data: bytes, context: bytes) -> bytes:
        first = self.providers[0]
        return first.prefix + first.transformer.to_storage(data, context)

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        for index, provider in enumerate(self.providers):
            if not data.startswith(provider.prefix):
                continue
            try:
                plain, stale = provider.transformer.from_storage(data[len(provider.prefix) :], context)
            except TransformError:
                if not provider.prefix:
                    continue
                raise
            return plain, stale or index != 0
        raise TransformError("no matching prefix found")
