"""The value transformer interface and the provider list of one resource.

Every encrypted value starts with its provider's prefix (`k8s:enc:aescbc:v1:<key name>:` under the
kubernetes profile); the first provider of the list writes, every provider reads the values carrying
its prefix, and identity (no prefix) reads plain values. A value read by any provider other than the
first is *stale*: the next update rewrites it even when the object did not change, which is how
rewriting every object rotates keys. Measured (per resource), each transformation is recorded with
the prefix of the provider that wrote or read the value.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from svc.storage.encryption.metrics import TransformationMetrics


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
    """One resource's providers in configured order (recorded in `metrics` as `resource` when given)."""

    def __init__(
        self, providers: list[Prefixed], resource: str = "", metrics: TransformationMetrics | None = None
    ) -> None:
        self.providers = providers
        self._resource = resource
        self._metrics = metrics

    def measured(self, resource: str, metrics: TransformationMetrics) -> PrefixTransformers:
        """The same providers, recording each transformation as `resource`'s."""
        return PrefixTransformers(self.providers, resource, metrics)

    def to_storage(self, data: bytes, context: bytes) -> bytes:
        first = self.providers[0]
        start = time.perf_counter()
        ok = False
        try:
            sealed = first.prefix + first.transformer.to_storage(data, context)
            ok = True
            return sealed
        finally:
            if self._metrics is not None:
                self._metrics.record(self._resource, "to_storage", first.prefix, time.perf_counter() - start, ok)

    def from_storage(self, data: bytes, context: bytes) -> tuple[bytes, bool]:
        start = time.perf_counter()
        prefix = b""
        ok = False
        try:
            for index, provider in enumerate(self.providers):
                if not data.startswith(provider.prefix):
                    continue
                prefix = provider.prefix
                try:
                    plain, stale = provider.transformer.from_storage(data[len(provider.prefix) :], context)
                except TransformError:
                    if not provider.prefix:
                        continue
                    raise
                ok = True
                return plain, stale or index != 0
            raise TransformError("no matching prefix found")
        finally:
            if self._metrics is not None:
                self._metrics.record(self._resource, "from_storage", prefix, time.perf_counter() - start, ok)
