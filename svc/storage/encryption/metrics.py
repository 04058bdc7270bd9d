"""Upstream's metrics of encryption at rest: every value transformation (`apiserver_storage_transformation_*`)
and the KMS v2 envelope (`apiserver_envelope_encryption_*`).

Key IDs never appear in labels: they are hashed (`sha256:<hex>`), as is the API server identity
(`apiserver_id_hash`). The labelled children are remembered per label set, since transformations
run on every read and write of an encrypted resource.
"""

from __future__ import annotations

import hashlib
import socket
import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

TRANSFORMATION_BUCKETS = tuple(5e-6 * 2**power for power in range(25))
KMS_LATENCY_BUCKETS = tuple(5e-5 * 2**power for power in range(15))
KEY_GENERATION_BUCKETS = tuple(5e-6 * 2**power for power in range(14))


def sha256_label(text: str) -> str:
    """Upstream's hashed label value: `sha256:<hex>`, empty for an empty text."""
    return f"sha256:{hashlib.sha256(text.encode()).hexdigest()}" if text else ""


def apiserver_id_hash() -> str:
    """The hashed identity of this API server (upstream's `apiserver-<hash of the host name>`)."""
    identity = f"apiserver-{hashlib.sha256(socket.gethostname().encode()).hexdigest()[:16]}"
    return sha256_label(identity)


class TransformationMetrics:
    """`apiserver_storage_transformation_duration_seconds` and `..._operations_total`."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.duration = Histogram(
            "apiserver_storage_transformation_duration_seconds",
            "[ALPHA] Latencies in seconds of value transformation operations.",
            ["transformation_type", "transformer_prefix"],
            buckets=TRANSFORMATION_BUCKETS,
            registry=registry,
        )
        self.operations = Counter(
            "apiserver_storage_transformation_operations",
            "[ALPHA] Total number of transformations. Successful transformation will have a status 'OK' and a "
            "varied status string when the transformation fails. The status, resource, and transformation_type "
            "fields can be used for alerting purposes. For example, you can monitor for encryption/decryption "
            "failures using the transformation_type (e.g., from_storage for decryption and to_storage for "
            "encryption). Additionally, these fields can be used to ensure that the correct transformers are "
            "applied to each resource.",
            ["resource", "transformation_type", "transformer_prefix", "status"],
            registry=registry,
        )
        self._children: dict[tuple[str, str, str, str], tuple[Histogram, Counter]] = {}

    def record(self, resource: str, kind: str, prefix: bytes, seconds: float, ok: bool) -> None:
        """One transformation (`kind` is `to_storage` or `from_storage`); a failure's status is
        `Unknown`, the gRPC code upstream reports for an error that carries none."""
        key = (resource, kind, prefix.decode(errors="replace"), "OK" if ok else "Unknown")
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = (self.duration.labels(key[1], key[2]), self.operations.labels(*key))
        if ok:  # upstream times successful transformations only
            children[0].observe(seconds)
        children[1].inc()


class EnvelopeMetrics:
    """The `apiserver_envelope_encryption_*` families of KMS v2 providers, and the generation of their
    seeds (`apiserver_storage_data_key_generation_*`)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        prefix = "apiserver_envelope_encryption_"
        self.identity = apiserver_id_hash()
        self.key_generation = Histogram(
            "apiserver_storage_data_key_generation_duration_seconds",
            "[ALPHA] Latencies in seconds of data encryption key(DEK) generation operations.",
            buckets=KEY_GENERATION_BUCKETS,
            registry=registry,
        )
        self.key_generation_failures = Counter(
            "apiserver_storage_data_key_generation_failures",
            "[ALPHA] Total number of failed data encryption key(DEK) generation operations.",
            registry=registry,
        )
        self.cache_fill = Gauge(
            prefix + "dek_cache_fill_percent",
            "[ALPHA] Percent of the cache slots currently occupied by cached DEKs.",
            registry=registry,
        )
        self.cache_size = Gauge(
            prefix + "dek_source_cache_size",
            "[ALPHA] Number of records in data encryption key (DEK) source cache. On a restart, this value is an "
            "approximation of the number of decrypt RPC calls the server will make to the KMS plugin.",
            ["provider_name"],
            registry=registry,
        )
        self.key_ids = Counter(
            prefix + "key_id_hash",
            "[ALPHA] Number of times a keyID is used split by transformation type, provider, and apiserver identity.",
            ["transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"],
            registry=registry,
        )
        self.key_id_last = Gauge(
            prefix + "key_id_hash_last_timestamp_seconds",
            "[ALPHA] The last time in seconds when a keyID was used.",
            ["transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"],
            registry=registry,
        )
        self.status_key_id_last = Gauge(
            prefix + "key_id_hash_status_last_timestamp_seconds",
            "[ALPHA] The last time in seconds when a keyID was returned by the Status RPC call.",
            ["provider_name", "key_id_hash", "apiserver_id_hash"],
            registry=registry,
        )
        self.invalid_key_ids = Counter(
            prefix + "invalid_key_id_from_status",
            "[ALPHA] Number of times an invalid keyID is returned by the Status RPC call split by error.",
            ["provider_name", "error"],
            registry=registry,
        )
        self.latency = Histogram(
            prefix + "kms_operations_latency_seconds",
            "[ALPHA] KMS operation duration with gRPC error code status total.",
            ["provider_name", "method_name", "grpc_status_code"],
            buckets=KMS_LATENCY_BUCKETS,
            registry=registry,
        )
        self._used: dict[tuple[str, str, str], tuple[Counter, Gauge]] = {}

    def key_id_used(self, kind: str, provider: str, key_id: str) -> None:
        key = (kind, provider, key_id)
        children = self._used.get(key)
        if children is None:
            labels = (kind, provider, sha256_label(key_id), self.identity)
            children = self._used[key] = (self.key_ids.labels(*labels), self.key_id_last.labels(*labels))
        children[0].inc()
        children[1].set(time.time())

    def status_key_id(self, provider: str, key_id: str) -> None:
        self.status_key_id_last.labels(provider, sha256_label(key_id), self.identity).set(time.time())

    def invalid_key_id(self, provider: str, error: str) -> None:
        """`error` is upstream's code: `empty` or `too_long`."""
        self.invalid_key_ids.labels(provider, error).inc()

    def kms_call(self, provider: str, method: str, code: str, seconds: float) -> None:
        self.latency.labels(provider, method, code).observe(seconds)

    def key_generated(self, seconds: float) -> None:
        self.key_generation.observe(seconds)

    def seed_cache(self, provider: str, size: int, capacity: int) -> None:
        self.cache_size.labels(provider).set(size)
        self.cache_fill.set(size / capacity)
