"""The transformers an EncryptionConfiguration describes, and which one a stored key uses.

Each resource list gets one provider chain; a resource is looked up as upstream looks it up:
`resource.group` first, then `*.group`, then `*.*`; resources named nowhere are stored in plaintext.
The group and resource of a value come from its key (upstream's layout, read back by
`group_resource_of_key`), so custom resources are covered without registering them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from svc.api.brand import Profile
from svc.api.resources import group_resource_of_key
from svc.storage.encryption.aes import AesCbc, AesGcm
from svc.storage.encryption.config import Provider, ResourceConfig, parse_group_resource
from svc.storage.encryption.metrics import TransformationMetrics
from svc.storage.encryption.secretbox import Secretbox
from svc.storage.encryption.transformer import Identity, Prefixed, PrefixTransformers, Transformer

if TYPE_CHECKING:
    from svc.storage.encryption.kms.envelope import KmsV2

MakeKms = Callable[[str, str, float], "KmsV2"]
"""(name, endpoint, timeout) -> the provider; shared by every resource list naming the plugin."""


class ResourceTransformers:
    """The transformer of every stored key under `store_prefix` (None: plaintext)."""

    def __init__(
        self,
        store_prefix: str,
        by_group_resource: dict[tuple[str, str], PrefixTransformers],
        metrics: TransformationMetrics | None = None,
    ) -> None:
        self._root = store_prefix.rstrip("/") + "/"
        self._by_group_resource = by_group_resource
        self._metrics = metrics
        self._by_prefix: dict[str, Transformer | None] = {}

    def for_key(self, key: str) -> Transformer | None:
        if not key.startswith(self._root):
            return None
        first_end = key.find("/", len(self._root))
        if first_end < 0:
            return None
        prefix = key[:first_end]
        if "." in prefix[len(self._root) :] or prefix.endswith("/services"):  # `<group>/<resource>`, `services/specs`
            second_end = key.find("/", first_end + 1)
            prefix = key[: second_end if second_end >= 0 else len(key)]
        try:
            return self._by_prefix[prefix]
        except KeyError:
            group_resource = group_resource_of_key(key[len(self._root) - 1 :])
            found = self._lookup(*group_resource) if group_resource is not None else None
            self._by_prefix[prefix] = found
            return found

    def _lookup(self, group: str, resource: str) -> Transformer | None:
        table = self._by_group_resource
        chain = table.get((group, resource)) or table.get((group, "*")) or table.get(("*", "*"))
        if chain is None or self._metrics is None:
            return chain
        return chain.measured(f"{resource}.{group}" if group else resource, self._metrics)


def build_transformers(
    configs: tuple[ResourceConfig, ...],
    profile: Profile,
    store_prefix: str,
    make_kms: MakeKms,
    metrics: TransformationMetrics | None = None,
) -> ResourceTransformers:
    """Transformers for the configuration; the first resource list naming a resource wins."""
    encrypted = profile.encryption_prefix.encode()
    table: dict[tuple[str, str], PrefixTransformers] = {}
    for config in configs:
        chain = PrefixTransformers(
            [one for provider in config.providers for one in _prefixed(provider, encrypted, make_kms)]
        )
        for name in config.resources:
            group, resource = parse_group_resource(name)
            table.setdefault((profile.upstream_group(group), resource), chain)
    return ResourceTransformers(store_prefix, table, metrics)


_CIPHERS: dict[str, Callable[[bytes], Transformer]] = {"aescbc": AesCbc, "aesgcm": AesGcm, "secretbox": Secretbox}


def _prefixed(provider: Provider, encrypted: bytes, make_kms: MakeKms) -> list[Prefixed]:
    """The provider's transformers with their stored prefixes (one per key for the local ciphers)."""
    if provider.type == "identity":
        return [Prefixed(b"", Identity(encrypted))]
    if provider.kms is not None:
        kms = make_kms(provider.kms.name, provider.kms.endpoint, provider.kms.timeout)
        return [Prefixed(encrypted + f"kms:v2:{provider.kms.name}:".encode(), kms)]
    cipher = _CIPHERS[provider.type]
    return [
        Prefixed(encrypted + f"{provider.type}:v1:{key.name}:".encode(), cipher(key.secret)) for key in provider.keys
    ]
