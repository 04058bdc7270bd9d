"""Upstream's admission metrics (k8s.io/apiserver admission/metrics): the latency of each phase of
the chain (`step`: admit or validate), of each plugin (`controller`, by plugin name) and of each
webhook call, webhook calls by answer code, rejections by webhook with their kind of error, and
webhook failures ignored under `failurePolicy: Ignore` (`fail_open`). Webhooks report their phase as
`admit` (mutating) or `validating`, as upstream's dispatchers do. `PolicyMetrics` counts and times the
checks of ValidatingAdmissionPolicy bindings by the action taken (`allow`, `deny`, `warn`, `audit`)."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram

from svc.apiserver.deferred_counts import Deferred
from svc.registry.admission import Operation

STEP_BUCKETS = (0.005, 0.025, 0.1, 0.5, 1.0, 2.5)
POLICY_BUCKETS = (0.0000005, 0.001, 0.01, 0.1, 1.0)
WEBHOOK_BUCKETS = (0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25)
MUTATING = "admit"
VALIDATING = "validating"
# The kinds of error in apiserver_admission_webhook_rejection_count.
CALLING_WEBHOOK_ERROR = "calling_webhook_error"
INTERNAL_ERROR = "apiserver_internal_error"
NO_ERROR = "no_error"

_PER_RESOURCE = "broken out for each operation and API resource and"


def _truth(value: bool) -> str:
    return "true" if value else "false"


class AdmissionMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self._deferred = Deferred(registry)
        self.steps = Histogram(
            "apiserver_admission_step_admission_duration_seconds",
            f"[STABLE] Admission sub-step latency histogram in seconds, {_PER_RESOURCE} step type (validate or admit).",
            ["type", "operation", "rejected"],
            buckets=STEP_BUCKETS,
            registry=registry,
        )
        self.controllers = Histogram(
            "apiserver_admission_controller_admission_duration_seconds",
            "[STABLE] Admission controller latency histogram in seconds, identified by name and "
            f"{_PER_RESOURCE} type (validate or admit).",
            ["name", "type", "operation", "rejected"],
            buckets=STEP_BUCKETS,
            registry=registry,
        )
        self.webhooks = Histogram(
            "apiserver_admission_webhook_admission_duration_seconds",
            "[STABLE] Admission webhook latency histogram in seconds, identified by name and "
            f"{_PER_RESOURCE} type (validate or admit).",
            ["name", "type", "operation", "rejected"],
            buckets=WEBHOOK_BUCKETS,
            registry=registry,
        )
        self.webhook_requests = Counter(
            "apiserver_admission_webhook_request",
            "[ALPHA] Admission webhook request total, identified by name and broken out for each admission type "
            "(validating or admit) and operation. Additional labels specify whether the request was rejected or "
            "not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics "
            "cardinality bounded.",
            ["name", "type", "operation", "code", "rejected"],
            registry=registry,
        )
        self.webhook_rejections = Counter(
            "apiserver_admission_webhook_rejection_count",
            "[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type "
            "(validating or admit) and operation. Additional labels specify an error type (calling_webhook_error "
            "or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero "
            "rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver "
            "when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the "
            "metrics cardinality bounded.",
            ["name", "type", "operation", "error_type", "rejection_code"],
            registry=registry,
        )
        self.webhook_fail_open = Counter(
            "apiserver_admission_webhook_fail_open_count",
            "[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type "
            "(validating or admit).",
            ["name", "type"],
            registry=registry,
        )
        # Every write observes the step and each plugin: prometheus_client's `labels()` validates and
        # locks on each call, so the few label combinations in use keep their children here.
        self._children: dict[tuple[object, ...], Any] = {}

    def step(self, kind: str, operation: Operation, rejected: bool, seconds: float) -> None:
        key = (None, kind, operation, rejected)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self._deferred.histogram(
                self.steps.labels(kind, operation.value, _truth(rejected))
            )
        child.observe(seconds)

    def controller(self, name: str, kind: str, operation: Operation, rejected: bool, seconds: float) -> None:
        key = (name, kind, operation, rejected)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = self._deferred.histogram(
                self.controllers.labels(name, kind, operation.value, _truth(rejected))
            )
        child.observe(seconds)

    def webhook(self, name: str, kind: str, operation: Operation, code: int, rejected: bool, seconds: float) -> None:
        """One call of a webhook; `code` is the HTTP status of its answer (0 when there was none)."""
        flag = _truth(rejected)
        self.webhook_requests.labels(name, kind, operation.value, str(min(code, 600)), flag).inc()
        self.webhooks.labels(name, kind, operation.value, flag).observe(seconds)

    def rejection(self, name: str, kind: str, operation: Operation, error_type: str, code: int) -> None:
        self.webhook_rejections.labels(name, kind, operation.value, error_type, str(min(code, 600))).inc()

    def fail_open(self, name: str, kind: str) -> None:
        self.webhook_fail_open.labels(name, kind).inc()


class PolicyMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        labels = ["policy", "policy_binding", "error_type", "enforcement_action"]
        self.checks = Counter(
            "apiserver_validating_admission_policy_check",
            "[BETA] Validation admission policy check total, labeled by policy and further identified by binding "
            "and enforcement action taken.",
            labels,
            registry=registry,
        )
        self.durations = Histogram(
            "apiserver_validating_admission_policy_check_duration_seconds",
            "[BETA] Validation admission latency for individual validation expressions in seconds, labeled by "
            "policy and further including binding and enforcement action taken.",
            labels,
            buckets=POLICY_BUCKETS,
            registry=registry,
        )

    def check(self, policy: str, binding: str, action: str, seconds: float, error_type: str = NO_ERROR) -> None:
        """One evaluation of a policy for a binding; `action` is `allow`, `deny`, `warn` or `audit`."""
        self.checks.labels(policy, binding, error_type, action).inc()
        self.durations.labels(policy, binding, error_type, action).observe(seconds)
