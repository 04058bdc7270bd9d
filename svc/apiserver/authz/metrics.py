"""Upstream's authorization metrics: terminal decisions per configured authorizer
(`apiserver_authorization_decisions_total`, the system:masters short cut not counted, as upstream's
instrumentation wraps only the configured authorizers) and the webhook authorizer's round trips,
latency and fail-open answers (`apiserver_authorization_webhook_*`)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

from svc.apiserver.authz.authorizer import Decision

# prometheus-client's default buckets are Go's DefBuckets.
DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_DECISION_LABELS = {Decision.ALLOW: "allowed", Decision.DENY: "denied"}


class AuthorizationMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.decisions = Counter(
            "apiserver_authorization_decisions",
            "[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, "
            "and decision.",
            ["type", "name", "decision"],
            registry=registry,
        )
        self.webhook_evaluations = Counter(
            "apiserver_authorization_webhook_evaluations",
            "[BETA] Round-trips to authorization webhooks.",
            ["name", "result"],
            registry=registry,
        )
        self.webhook_duration = Histogram(
            "apiserver_authorization_webhook_duration_seconds",
            "[BETA] Request latency in seconds.",
            ["name", "result"],
            buckets=DEFAULT_BUCKETS,
            registry=registry,
        )
        self.webhook_fail_open = Counter(
            "apiserver_authorization_webhook_evaluations_fail_open",
            "[BETA] NoOpinion results due to webhook timeout or error.",
            ["name", "result"],
            registry=registry,
        )

    def record_decision(self, authorizer_type: str, name: str, decision: Decision) -> None:
        self.decisions.labels(authorizer_type, name, _DECISION_LABELS.get(decision, "unknown")).inc()

    def record_webhook(self, name: str, result: str, seconds: float, *, fail_open: bool) -> None:
        """One call of a webhook: `success`, `timeout` or `error`; a failure answered NoOpinion fails open."""
        self.webhook_evaluations.labels(name, result).inc()
        self.webhook_duration.labels(name, result).observe(seconds)
        if fail_open:
            self.webhook_fail_open.labels(name, result).inc()
