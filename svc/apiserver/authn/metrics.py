"""Upstream's metrics of the structured JWT authenticators: the latency of verifying a token (by
result and hashed issuer; upstream times cache misses only, and this server keeps no token cache, so
every verification is one) and the automatic reloads of `--authentication-config`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Histogram

from svc.apiserver.config_reload_metrics import ReloadMetrics

# Upstream: the default buckets with a 1ms starting point.
LATENCY_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

Observer = Callable[[bool, float], None]
"""Told whether a verification succeeded and how long it took."""


class JWTMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.latency = Histogram(
            "apiserver_authentication_jwt_authenticator_latency_seconds",
            "[ALPHA] Latency of jwt authentication operations in seconds. This is the time spent authenticating "
            "a token for cache miss only (i.e. when the token is not found in the cache).",
            ["result", "jwt_issuer_hash"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.reloads = ReloadMetrics(registry, "authentication")
        self._observers: dict[str, Observer] = {}

    def observer(self, issuer: str) -> Observer:
        found = self._observers.get(issuer)
        if found is None:
            found = self._observers[issuer] = self._observer(issuer)
        return found

    def _observer(self, issuer: str) -> Observer:
        issuer_hash = "sha256:" + hashlib.sha256(issuer.encode()).hexdigest()
        success = self.latency.labels("success", issuer_hash)
        failure = self.latency.labels("failure", issuer_hash)

        def observe(succeeded: bool, seconds: float) -> None:
            (success if succeeded else failure).observe(seconds)

        return observe
