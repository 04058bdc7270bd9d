"""The server's encryption at rest: the transformers of the configuration, kept current.

Object stores ask `for_key` which transformer a key uses. KMS v2 providers are polled in the
background (their key ID drives seed rotation); their health is `/healthz/kms-provider-<n>`, or one
`kms-providers` check when the file is reloaded (the check names then cannot follow the providers).
With automatic reload the file is polled; when its bytes change it is validated again, its KMS
plugins must answer, and only then do its transformers replace the old ones. Each attempt is counted
in upstream's metrics (`apiserver_encryption_config_controller_automatic_reloads_total` and
`..._automatic_reload_last_timestamp_seconds`, by status and the hashed API server identity).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge

from svc.api.brand import Profile
from svc.apiserver.config_reload_metrics import read_if_changed
from svc.apiserver.encryption.options import EncryptionOptions
from svc.apiserver.health import HealthCheck
from svc.storage.encryption.config import ResourceConfig, parse_encryption_config
from svc.storage.encryption.metrics import EnvelopeMetrics, TransformationMetrics, apiserver_id_hash
from svc.storage.encryption.providers import ResourceTransformers, build_transformers
from svc.storage.encryption.transformer import Transformer

if TYPE_CHECKING:
    from svc.storage.encryption.kms.envelope import KmsV2

log = logging.getLogger(__name__)

RELOAD_INTERVAL = 60.0
"""How often the configuration file is checked (upstream re-reads it at least once a minute)."""


class _ReloadMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        labels = ["status", "apiserver_id_hash"]
        self.reloads = Counter(
            "apiserver_encryption_config_controller_automatic_reloads",
            "Total number of reload successes and failures of encryption configuration split by apiserver identity.",
            labels,
            registry=registry,
        )
        self.last = Gauge(
            "apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds",
            "Timestamp of the last successful or failed automatic reload of encryption configuration split by "
            "apiserver identity.",
            labels,
            registry=registry,
        )
        self.identity_hash = apiserver_id_hash()

    def record(self, status: str) -> None:
        self.reloads.labels(status, self.identity_hash).inc()
        self.last.labels(status, self.identity_hash).set(time.time())


class _Metrics:
    """The transformation and envelope families, shared by every generation of the configuration."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.transformations = TransformationMetrics(registry)
        self.envelope = EnvelopeMetrics(registry)


class _Generation:
    """The transformers of one configuration and the KMS providers they use."""

    def __init__(
        self, configs: tuple[ResourceConfig, ...], profile: Profile, store_prefix: str, metrics: _Metrics
    ) -> None:
        self.kms: list[KmsV2] = []

        def make_kms(name: str, endpoint: str, timeout: float) -> KmsV2:
            # grpc is imported only when a KMS provider is configured.
            from svc.storage.encryption.kms.envelope import KmsV2
            from svc.storage.encryption.kms.plugin import Plugin

            for existing in self.kms:
                if existing.name == name:
                    return existing
            envelope = metrics.envelope

            def on_call(method: str, code: str, seconds: float) -> None:
                envelope.kms_call(name, method, code, seconds)

            provider = KmsV2(name, Plugin(endpoint, timeout, on_call), envelope)
            self.kms.append(provider)
            return provider

        self.transformers: ResourceTransformers = build_transformers(
            configs, profile, store_prefix, make_kms, metrics.transformations
        )
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await asyncio.gather(*(kms.check() for kms in self.kms))
        self.tasks = [asyncio.create_task(kms.run(), name=f"kms-{kms.name}") for kms in self.kms]

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for kms in self.kms:
            kms.close()


class Encryption:
    def __init__(self, options: EncryptionOptions, profile: Profile, store_prefix: str, registry: CollectorRegistry):
        self._options = options
        self._profile = profile
        self._store_prefix = store_prefix
        self._file_bytes = options.config_bytes
        self._metrics = _ReloadMetrics(registry) if options.automatic_reload else None
        self._families = _Metrics(registry)
        self.reload_interval = RELOAD_INTERVAL
        self.current = _Generation(options.config, profile, store_prefix, self._families)

    def for_key(self, key: str) -> Transformer | None:
        return self.current.transformers.for_key(key)

    async def start(self) -> None:
        await self.current.start()

    def health_checks(self) -> list[HealthCheck]:
        if self._options.automatic_reload:
            return [HealthCheck("kms-providers", self._all_kms_healthy)]
        return [HealthCheck(f"kms-provider-{index}", kms.health) for index, kms in enumerate(self.current.kms)]

    async def _all_kms_healthy(self) -> None:
        for kms in self.current.kms:
            await kms.health()

    async def reload(self) -> bool:
        """Read the file again if its bytes changed; True when its transformers took over."""
        if self._metrics is None:
            return False
        data = await read_if_changed(
            self._options.config_file, self._file_bytes, self._metrics, "encryption provider configuration"
        )
        if data is None:
            return False
        self._file_bytes = data
        try:
            configs = parse_encryption_config(data, self._profile, self._options.config_file)
            generation = _Generation(configs, self._profile, self._store_prefix, self._families)
        except ValueError as error:
            log.error("error reloading encryption provider configuration, keeping the previous one: %s", error)
            self._metrics.record("failure")
            return False
        await generation.start()
        unhealthy = [kms.problem for kms in generation.kms if kms.problem]
        if unhealthy:
            log.error(
                "new encryption provider configuration has unhealthy KMS providers, keeping the previous one: %s",
                unhealthy[0],
            )
            await generation.close()
            self._metrics.record("failure")
            return False
        old, self.current = self.current, generation
        await old.close()
        log.info("reloaded encryption provider configuration")
        self._metrics.record("success")
        return True

    async def run_reloads(self) -> None:
        if self._metrics is None:
            return
        while True:
            await asyncio.sleep(self.reload_interval)
            await self.reload()

    async def close(self) -> None:
        await self.current.close()


def build_encryption(
    options: EncryptionOptions, profile: Profile, store_prefix: str, registry: CollectorRegistry
) -> Encryption | None:
    """None when no configuration is given: values are stored as the codec writes them."""
    if not options.config_file:
        return None
    return Encryption(options, profile, store_prefix, registry)
