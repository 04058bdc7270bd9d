"""`/metrics/slis`: the health checks as service-level indicators (upstream component-base `slis`).

Every check run by `/healthz`, `/livez` or `/readyz` sets `kubernetes_healthcheck` (1 passing, 0
failing) and counts `kubernetes_healthchecks_total` by status. They live in a registry of their own,
served only at `/metrics/slis`, as upstream's."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest


class HealthcheckSlis:
    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self._result = Gauge(
            "kubernetes_healthcheck",
            "[BETA] This metric records the result of a single healthcheck.",
            ["name", "type"],
            registry=registry,
        )
        self._total = Counter(
            "kubernetes_healthchecks",
            "[BETA] This metric records the results of all healthcheck.",
            ["name", "type", "status"],
            registry=registry,
        )

    def observe(self, name: str, endpoint: str, passed: bool) -> None:
        self._result.labels(name, endpoint).set(1 if passed else 0)
        self._total.labels(name, endpoint, "success" if passed else "error").inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
